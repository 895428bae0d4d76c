# lit configuration for minitile's IR, CLI and kernel tests.
import os
import sys
import lit.formats

config.name = "minitile"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(os.path.dirname(config.minitile_tools_dir), "tests", "lit-out")
config.excludes = ["lit.cfg.py", "lit.site.cfg.py.in"]

config.environment["PATH"] = os.pathsep.join(
    [config.minitile_tools_dir, config.minitile_tests_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ["PATH"])])
config.substitutions.append(("%minitile-src", config.minitile_src_root))
config.substitutions.append(("%minitile-build", config.minitile_build_root))
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%minitile-launcher-errors",
                             os.path.join(config.minitile_build_root, "tests", "minitile-launcher-errors")))
if config.ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", config.ptxas))
if config.libdevice:
    config.available_features.add("libdevice")
# minitile tune builds its runner against the runtime, which needs CUDA's
# headers; a fake libcuda.so.1 (tests/tune/FakeCuda.cpp) lets it run here.
if config.cuda_toolkit in ("TRUE", "ON", "1", "YES"):
    config.available_features.add("tune")
    config.substitutions.append(("%fake-cuda", os.path.join(config.minitile_tests_dir, "fake-cuda")))
    # Compiling and linking a program against generated launchers.
    config.substitutions.append(("%cxx-launcher", "%s -std=c++20 -I%s -I%s" % (
        config.cxx, os.path.join(config.minitile_src_root, "runtime", "include"),
        config.cuda_include.split(";")[0])))
    config.substitutions.append(("%minitile-runtime-lib", os.path.join(
        config.minitile_build_root, "runtime", "libminitile-runtime.a") + " -ldl -pthread"))
try:
    import ctypes
    ctypes.CDLL("libcuda.so.1")
    config.available_features.add("cuda-driver")
except OSError:
    pass
if os.path.exists(os.path.join(config.minitile_build_root, "examples", "gemm", "gemm-generator")):
    config.available_features.add("examples")
if config.sanitize:
    config.available_features.add("sanitized")
if os.geteuid() == 0:
    config.available_features.add("root")
