# `cmake --install build --prefix P` installs:
#   P/bin/minitile, P/bin/minitile-opt
#   P/include/minitile/{dsl,target,driver,runtime}.h     (nothing else of the tree)
#   P/lib/libminitile-*.a                                 (runtime; generator libraries)
#   P/lib/cmake/minitile/                                 the CMake package:
#     minitileConfig.cmake, minitileConfigVersion.cmake, minitile.cmake (the
#     functions), and one file of exported targets per component (runtime,
#     tools, generator; see minitileConfig.cmake.in).
# Every path in the package is relative to its own location: the prefix can
# be moved or copied anywhere.
include(CMakePackageConfigHelpers)
set(MINITILE_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/minitile)

# Names once installed: minitile::<name>.
set_target_properties(minitile-target PROPERTIES EXPORT_NAME target)
set_target_properties(minitile-dialect PROPERTIES EXPORT_NAME dialect)
set_target_properties(minitile-passes PROPERTIES EXPORT_NAME passes)
set_target_properties(minitile-lowering PROPERTIES EXPORT_NAME lowering)
set_target_properties(minitile-dsl PROPERTIES EXPORT_NAME dsl)
set_target_properties(minitile-cli PROPERTIES EXPORT_NAME driver)
set_target_properties(minitile-main PROPERTIES EXPORT_NAME main)
set_target_properties(minitile PROPERTIES EXPORT_NAME minitile)
set_target_properties(minitile-opt PROPERTIES EXPORT_NAME minitile-opt)

# What users include once installed: only the public headers, from
# P/include. (In the build tree each library exposes its own folder.)
foreach(lib minitile-target minitile-dsl minitile-cli)
  target_include_directories(${lib} PUBLIC $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
endforeach()
target_compile_features(minitile-dsl PUBLIC cxx_std_20)

install(TARGETS minitile minitile-opt EXPORT minitile-tools
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(EXPORT minitile-tools NAMESPACE minitile:: FILE minitileToolsTargets.cmake
        DESTINATION ${MINITILE_INSTALL_CMAKEDIR})

# A generator links the DSL, the driver and main(); the IR, passes and
# lowering come along as link-only dependencies of the driver.
install(TARGETS minitile-target minitile-dialect minitile-passes minitile-lowering
                minitile-dsl minitile-cli minitile-main
        EXPORT minitile-generator ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT minitile-generator NAMESPACE minitile:: FILE minitileGeneratorTargets.cmake
        DESTINATION ${MINITILE_INSTALL_CMAKEDIR})
install(FILES ${PROJECT_SOURCE_DIR}/dsl/include/minitile/dsl.h
              ${PROJECT_SOURCE_DIR}/dialect/include/minitile/target.h
              ${PROJECT_SOURCE_DIR}/tools/include/minitile/driver.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/minitile)

if(TARGET minitile-runtime)
  set_target_properties(minitile-runtime PROPERTIES EXPORT_NAME runtime)
  install(TARGETS minitile-runtime EXPORT minitile-runtime
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(EXPORT minitile-runtime NAMESPACE minitile:: FILE minitileRuntimeTargets.cmake
          DESTINATION ${MINITILE_INSTALL_CMAKEDIR})
  install(FILES ${PROJECT_SOURCE_DIR}/runtime/include/minitile/runtime.h
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/minitile)
endif()

set(MINITILE_TUNED_INSTALL_DIR ${CMAKE_INSTALL_DATADIR}/minitile/tuned)
# The shipped kernels' tune tables (minitile tune), for
# minitile_add_kernel_library(... TUNED ${MINITILE_TUNED_DIR}/<table>).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/kernels/tuned/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/minitile/tuned FILES_MATCHING PATTERN "*.txt")

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/minitileConfig.cmake.in
  ${PROJECT_BINARY_DIR}/package/minitileConfig.cmake
  INSTALL_DESTINATION ${MINITILE_INSTALL_CMAKEDIR}
  PATH_VARS MINITILE_TUNED_INSTALL_DIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/minitileConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/package/minitileConfig.cmake
              ${PROJECT_BINARY_DIR}/package/minitileConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/minitile.cmake
        DESTINATION ${MINITILE_INSTALL_CMAKEDIR})

# The build tree is not a package (its targets are not exported from it):
# find_package(minitile) pointed at it (minitile_DIR=BUILD, or BUILD in
# CMAKE_PREFIX_PATH) finds these two files, which say to install first.
file(WRITE ${PROJECT_BINARY_DIR}/minitileConfigVersion.cmake
  "# Accepts any version, so that minitileConfig.cmake runs and says why the build\n"
  "# tree is no package.\n"
  "set(PACKAGE_VERSION \"${PROJECT_VERSION}\")\n"
  "set(PACKAGE_VERSION_COMPATIBLE TRUE)\n")
file(WRITE ${PROJECT_BINARY_DIR}/minitileConfig.cmake
  "# minitile's build tree, not a package: see cmake/install.cmake.\n"
  "set(minitile_FOUND FALSE)\n"
  "string(CONCAT minitile_NOT_FOUND_MESSAGE \"${PROJECT_BINARY_DIR} is minitile's build tree, \"\n"
  "    \"which is not a package: install minitile first (cmake --install \"\n"
  "    \"${PROJECT_BINARY_DIR} --prefix P) and point CMAKE_PREFIX_PATH (or \"\n"
  "    \"minitile_DIR) at P\")\n")
