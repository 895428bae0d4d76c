# minitile_add_kernel_library(<target>
#     KERNEL <kernel>            # a registered generator ('minitile list')
#     [NAME <launcher>]          # the C++ function's name (default: <kernel>)
#     [PARAMS name=value ...]    # generator parameters
#     [NAMESPACE <ns>]           # default minitile::kernels
#     [ARCH <sm_XX>]             # default sm_90a
#     [GENERATOR <executable>])  # a minitile CLI (default: minitile)
#
# Runs the minitile CLI at build time (like Halide's add_halide_library) and
# makes <target>, a static library holding the kernel's image and its typed
# launcher, declared in <launcher>.h.
function(minitile_add_kernel_library target)
  cmake_parse_arguments(ARG "" "KERNEL;NAME;NAMESPACE;ARCH;GENERATOR" "PARAMS" ${ARGN})
  if(NOT ARG_KERNEL)
    message(FATAL_ERROR "minitile_add_kernel_library(${target}): KERNEL is required")
  endif()
  if(NOT ARG_NAME)
    set(ARG_NAME ${ARG_KERNEL})
  endif()
  if(NOT ARG_NAMESPACE)
    set(ARG_NAMESPACE minitile::kernels)
  endif()
  if(NOT ARG_ARCH)
    set(ARG_ARCH sm_90a)
  endif()
  if(NOT ARG_GENERATOR)
    if(TARGET minitile)
      set(ARG_GENERATOR minitile)
    else()
      set(ARG_GENERATOR ${MINITILE_CLI})
    endif()
  endif()
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/${target}.minitile)
  set(header ${dir}/${ARG_NAME}.h)
  set(source ${dir}/${ARG_NAME}.cpp)
  set(param_args)
  foreach(p ${ARG_PARAMS})
    list(APPEND param_args -p ${p})
  endforeach()
  set(depends)
  if(TARGET ${ARG_GENERATOR})
    set(depends ${ARG_GENERATOR})
  endif()
  add_custom_command(OUTPUT ${header} ${source}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
    COMMAND ${ARG_GENERATOR} compile ${ARG_KERNEL} ${param_args} --arch ${ARG_ARCH}
            --name ${ARG_NAME} --namespace ${ARG_NAMESPACE} --emit cpp -o ${header}
    DEPENDS ${depends}
    COMMENT "minitile: ${ARG_KERNEL} ${ARG_PARAMS} -> ${ARG_NAME}.h/.cpp"
    VERBATIM)
  add_library(${target} STATIC ${source} ${header})
  target_include_directories(${target} PUBLIC ${dir})
  target_link_libraries(${target} PUBLIC minitile::runtime)
endfunction()

# minitile_add_generator(<executable> SOURCES <file>...)
#
# A minitile CLI holding your own generators (MINITILE_KERNEL in the sources)
# beside nothing else; pass it to minitile_add_kernel_library(GENERATOR ...).
function(minitile_add_generator exe)
  cmake_parse_arguments(ARG "" "" "SOURCES" ${ARGN})
  add_executable(${exe} ${MINITILE_SOURCE_ROOT}/tools/minitile/main.cpp ${ARG_SOURCES})
  target_link_libraries(${exe} PRIVATE minitile-cli)
  minitile_use_mlir(${exe})
endfunction()
