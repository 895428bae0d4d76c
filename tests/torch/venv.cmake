# The torch tests' virtual environment (tests/CMakeLists.txt, MINITILE_TORCH):
# made once in VENV with PYTHON, then PIP_SPEC (torch from PyPI), pytest and
# numpy installed into it. An environment that already imports them is kept.
#   cmake -DVENV=build/torch-venv -DPYTHON=python3 -DPIP_SPEC=torch==2.11.0 -P venv.cmake
set(py ${VENV}/bin/python)
if(EXISTS ${py})
  execute_process(COMMAND ${py} -c "import torch, pytest, numpy" RESULT_VARIABLE missing
                  OUTPUT_QUIET ERROR_QUIET)
  if(missing EQUAL 0)
    message(STATUS "torch-venv: ${VENV} is ready")
    return()
  endif()
else()
  execute_process(COMMAND ${PYTHON} -m venv ${VENV} RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "torch-venv: ${PYTHON} -m venv ${VENV} failed")
  endif()
endif()
separate_arguments(spec UNIX_COMMAND "${PIP_SPEC}")
execute_process(COMMAND ${py} -m pip install --quiet ${spec} pytest numpy RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "torch-venv: pip install ${PIP_SPEC} pytest numpy failed (PyPI reachable?)")
endif()
message(STATUS "torch-venv: installed ${PIP_SPEC}, pytest and numpy in ${VENV}")
