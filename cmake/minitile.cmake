# minitile's CMake functions: for minitile's own build, and for a project
# that uses an installed minitile through find_package(minitile CONFIG).
#
# minitile_add_kernel_library(<target>
#     KERNEL <kernel>            # a generator's kernel ('minitile list', '<generator> list')
#     [GENERATOR <executable>]   # an executable target: one made by
#                                # minitile_add_generator(), or minitile::minitile
#                                # (the default: the shipped kernels)
#     [NAME <launcher>]          # the C++ function's name (default: <kernel>)
#     [PARAMS name=value ...]    # generator parameters
#     [NAMESPACE <ns>]           # default minitile::kernels
#     [ARCH <sm_XX>]             # default sm_90a
#     [TUNED <file> | UNTUNED])  # TUNED: a table of tuned values ('minitile
#                                # tune'): its line for KERNEL gives the
#                                # parameters PARAMS does not (relative: to this
#                                # directory); with lines for single shapes, a
#                                # kernel per shape and a launcher choosing by
#                                # the sizes. Neither: the tables the kernel
#                                # ships with do that (the shipped kernels', and
#                                # a generator's TUNED_TABLES), a launcher
#                                # choosing by sizes and by the device it runs
#                                # on. UNTUNED: the generator's defaults.
#
#   Runs the generator at build time (like Halide's add_halide_library) and
#   makes <target>, a static library holding the kernel's image and its typed
#   launcher, declared in <launcher>.h; it links minitile::runtime. The
#   kernel is generated again when the generator's executable changes (a
#   kernel source of it was edited, or a table it ships), when the arguments
#   do (PARAMS, NAME, ...) or when the TUNED table does, and only then.
#
# minitile_add_generator(<executable> SOURCES <file>... [SOURCE_ROOT <dir>]
#                        [TUNED_TABLES <file>... [FALLBACK <device>]])
#
#   A minitile command line holding the kernels (MINITILE_KERNEL) defined in
#   SOURCES and nothing else: pass it to minitile_add_kernel_library(GENERATOR).
#   The sources are compiled into the executable itself, so every
#   registration is linked (kernels in a static library of their own might be
#   dropped by the linker). Diagnostics and generated files name them
#   relative to SOURCE_ROOT (default: PROJECT_SOURCE_DIR). Needs the package's
#   `generator` component, which finds LLVM/MLIR. TUNED_TABLES ships tables
#   with the kernels (minitile_embed_tuned_tables).
#
# minitile_embed_tuned_tables(<target> FILES <kernel>.<device>.txt...
#                             [FALLBACK <device>])
#
#   Compiles tuned tables ('minitile tune' writes them) into <target>, a
#   generator or an object library linked into one: each file, named for
#   its kernel and the device it was measured on (indexer_fwd.h100.txt),
#   becomes the values that kernel's compiles take where -p gives none. A
#   launcher holds each device's kernels and runs those of the device it is
#   on; devices without a table run FALLBACK's (default: each kernel's
#   first file's). Editing a file reconfigures and rebuilds.
#
# minitile_source_root(<target> <dir>)
#
#   Makes the file names <target>'s sources record (__FILE__ and
#   std::source_location, which the DSL puts in its diagnostics and in the
#   provenance line of generated files) relative to <dir>, whether the
#   compiler is handed absolute paths or, as ccache with base_dir does, paths
#   relative to the build directory. Generated files are then the same in
#   every checkout and build directory. (ccache 4 leaves the maps' values out
#   of its hash: after changing <dir> of a target, rebuild its objects with
#   CCACHE_RECACHE=1.)

function(minitile_source_root target root)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    return()
  endif()
  get_filename_component(root "${root}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  set(maps "-ffile-prefix-map=${root}/=")
  # Ninja compiles in the top build directory, Makefiles in the target's.
  foreach(cwd "${CMAKE_BINARY_DIR}" "${CMAKE_CURRENT_BINARY_DIR}")
    file(RELATIVE_PATH rel "${cwd}" "${root}")
    string(REGEX REPLACE "/$" "" rel "${rel}")
    if(rel)
      list(APPEND maps "-ffile-prefix-map=${rel}/=")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES maps)
  target_compile_options(${target} PRIVATE ${maps})
endfunction()

function(minitile_embed_tuned_tables target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "FALLBACK" "FILES")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "minitile_embed_tuned_tables(${target}): unknown arguments "
                        "${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_FILES)
    message(FATAL_ERROR "minitile_embed_tuned_tables(${target}): FILES is required")
  endif()
  set(code "// Generated by minitile_embed_tuned_tables(); do not edit.\n")
  string(APPEND code "#include \"minitile/dsl.h\"\n\n")
  set(kernels "")
  set(fallbacks "")
  set(n 0)
  foreach(f ${ARG_FILES})
    get_filename_component(path "${f}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    get_filename_component(name "${path}" NAME)
    if(NOT name MATCHES "^([A-Za-z_][A-Za-z0-9_]*)\\.([A-Za-z0-9_-]+)\\.txt$")
      message(FATAL_ERROR "minitile_embed_tuned_tables(${target}): '${name}' is not named "
                          "<kernel>.<device>.txt (e.g. indexer_fwd.h100.txt)")
    endif()
    set(kernel "${CMAKE_MATCH_1}")
    string(TOUPPER "${CMAKE_MATCH_2}" device)
    if(NOT EXISTS "${path}")
      message(FATAL_ERROR "minitile_embed_tuned_tables(${target}): no file ${path}")
    endif()
    file(READ "${path}" text)
    if(text MATCHES "\\)minitile_table\"")
      message(FATAL_ERROR "minitile_embed_tuned_tables(${target}): ${name} holds "
                          "')minitile_table\"', which ends the string it is embedded in")
    endif()
    set(fallback false)
    if(ARG_FALLBACK)
      string(TOUPPER "${ARG_FALLBACK}" wanted)
      if(device STREQUAL wanted)
        set(fallback true)
      endif()
    elseif(NOT kernel IN_LIST kernels)
      set(fallback true)
    endif()
    if(fallback)
      list(APPEND fallbacks ${kernel})
    endif()
    list(APPEND kernels ${kernel})
    string(APPEND code "MINITILE_TUNED_TABLE(table${n}, \"${kernel}\", \"${device}\", "
                       "\"${name}\", ${fallback}, R\"minitile_table(${text})minitile_table\");\n")
    math(EXPR n "${n} + 1")
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${path}")
  endforeach()
  list(REMOVE_DUPLICATES kernels)
  foreach(kernel ${kernels})
    if(NOT kernel IN_LIST fallbacks)
      message(FATAL_ERROR "minitile_embed_tuned_tables(${target}): no table of ${kernel} is "
                          "for FALLBACK ${ARG_FALLBACK}")
    endif()
  endforeach()
  set(out "${CMAKE_CURRENT_BINARY_DIR}/${target}.tuned-tables.cpp")
  file(CONFIGURE OUTPUT "${out}" CONTENT "${code}" @ONLY)
  target_sources(${target} PRIVATE "${out}")
endfunction()

function(minitile_add_generator exe)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "SOURCE_ROOT;FALLBACK" "SOURCES;TUNED_TABLES")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "minitile_add_generator(${exe}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "minitile_add_generator(${exe}): SOURCES is required")
  endif()
  if(NOT TARGET minitile::main)
    message(FATAL_ERROR "minitile_add_generator(${exe}): minitile's generator libraries are "
                        "not loaded; ask for them with "
                        "find_package(minitile CONFIG REQUIRED COMPONENTS generator)")
  endif()
  if(NOT ARG_SOURCE_ROOT)
    set(ARG_SOURCE_ROOT "${PROJECT_SOURCE_DIR}")
  endif()
  add_executable(${exe} ${ARG_SOURCES})
  target_link_libraries(${exe} PRIVATE minitile::main minitile::dsl)
  target_compile_features(${exe} PRIVATE cxx_std_20)
  minitile_source_root(${exe} "${ARG_SOURCE_ROOT}")
  if(ARG_TUNED_TABLES)
    set(fallback "")
    if(ARG_FALLBACK)
      set(fallback FALLBACK ${ARG_FALLBACK})
    endif()
    minitile_embed_tuned_tables(${exe} FILES ${ARG_TUNED_TABLES} ${fallback})
  elseif(ARG_FALLBACK)
    message(FATAL_ERROR "minitile_add_generator(${exe}): FALLBACK chooses among TUNED_TABLES")
  endif()
endfunction()

# Called at the end of the top directory for a GENERATOR that was not (yet) a
# target when minitile_add_kernel_library() named it.
function(_minitile_check_generator target generator)
  if(NOT TARGET ${generator})
    message(FATAL_ERROR "minitile_add_kernel_library(${target}): GENERATOR '${generator}' "
                        "is not a target; make it with minitile_add_generator()")
  endif()
  get_target_property(type ${generator} TYPE)
  if(NOT type STREQUAL "EXECUTABLE")
    message(FATAL_ERROR "minitile_add_kernel_library(${target}): GENERATOR '${generator}' "
                        "is a ${type}, not an executable")
  endif()
endfunction()

function(minitile_add_kernel_library target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "UNTUNED" "KERNEL;NAME;NAMESPACE;ARCH;GENERATOR;TUNED"
                        "PARAMS")
  if(ARG_UNTUNED AND ARG_TUNED)
    message(FATAL_ERROR "minitile_add_kernel_library(${target}): TUNED and UNTUNED exclude "
                        "each other")
  endif()
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "minitile_add_kernel_library(${target}): unknown arguments "
                        "${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_KERNEL)
    message(FATAL_ERROR "minitile_add_kernel_library(${target}): KERNEL is required")
  endif()
  if(NOT TARGET minitile::runtime)
    message(FATAL_ERROR "minitile_add_kernel_library(${target}): the library links "
                        "minitile::runtime, which is missing: minitile's runtime component "
                        "needs CUDA's headers (find_package(CUDAToolkit))")
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
    set(ARG_GENERATOR minitile::minitile)
  endif()
  if(TARGET ${ARG_GENERATOR})
    _minitile_check_generator(${target} ${ARG_GENERATOR})
  else()
    # Perhaps made further down: check once every directory is read.
    cmake_language(EVAL CODE "
      cmake_language(DEFER DIRECTORY [[${CMAKE_SOURCE_DIR}]]
                     CALL _minitile_check_generator [[${target}]] [[${ARG_GENERATOR}]])")
  endif()

  set(dir ${CMAKE_CURRENT_BINARY_DIR}/${target}.minitile)
  file(MAKE_DIRECTORY ${dir})
  set(header ${dir}/${ARG_NAME}.h)
  set(source ${dir}/${ARG_NAME}.cpp)
  set(args compile ${ARG_KERNEL})
  foreach(p ${ARG_PARAMS})
    list(APPEND args -p ${p})
  endforeach()
  list(APPEND args --arch ${ARG_ARCH} --name ${ARG_NAME} --namespace ${ARG_NAMESPACE}
                   --emit cpp -o ${header})
  set(tuned "")
  if(ARG_TUNED)
    get_filename_component(tuned "${ARG_TUNED}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND args --tuned ${tuned})
  elseif(ARG_UNTUNED)
    list(APPEND args --untuned)
  endif()

  string(JOIN " " params ${ARG_PARAMS})
  # Every configuration a build compiles, for tools that want them all (the
  # tile IR fuzzer's seeds: minitile's own CMakeLists.txt lists them).
  if(NOT ARG_TUNED)
    set(configured "${params}")
    if(ARG_UNTUNED)
      string(APPEND configured " --untuned")
    endif()
    set_property(GLOBAL APPEND PROPERTY MINITILE_KERNEL_CONFIGURATIONS
                 "${ARG_GENERATOR}|${ARG_KERNEL}|${ARG_ARCH}|${configured}")
  endif()
  if(ARG_TUNED)
    string(APPEND params " (tuned: ${ARG_TUNED})")
  elseif(ARG_UNTUNED)
    string(APPEND params " (untuned)")
  endif()
  add_custom_command(OUTPUT ${header} ${source}
    COMMAND $<TARGET_FILE:${ARG_GENERATOR}> ${args}
    # The generator's file, not only its target: a relinked generator (an
    # edited kernel) generates again. A changed command line (PARAMS, NAME,
    # ...) does too: Ninja compares command lines, and CMake's Makefiles
    # remove the outputs of a rule that changed.
    DEPENDS ${ARG_GENERATOR} $<TARGET_FILE:${ARG_GENERATOR}> ${tuned}
    COMMENT "minitile: ${ARG_KERNEL} ${params} -> ${ARG_NAME}.h/.cpp"
    VERBATIM)
  add_library(${target} STATIC ${source} ${header})
  target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${dir}>)
  target_link_libraries(${target} PUBLIC minitile::runtime)
endfunction()
