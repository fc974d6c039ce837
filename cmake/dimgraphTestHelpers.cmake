# Helpers for dimgraph's own tests: compile-fail cases and header self-containment checks.
# Included from the top-level CMakeLists.txt, which sets DIMGRAPH_TESTED_INCLUDE_DIR
# (include/ or single_include/) and the target dimgraph_dev.

set(_dimgraph_helpers_dir "${CMAKE_CURRENT_LIST_DIR}")

# Boost's include directories, for compilers run outside of CMake's targets (minus the
# compiler's own directories: naming /usr/include again can break #include_next).
function(_dimgraph_boost_include_dirs out)
  get_target_property(_dirs Boost::headers INTERFACE_INCLUDE_DIRECTORIES)
  if(NOT _dirs)
    set(_dirs "${Boost_INCLUDE_DIRS}")
  endif()
  set(_kept)
  foreach(_dir IN LISTS _dirs)
    if(NOT _dir IN_LIST CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)
      list(APPEND _kept "${_dir}")
    endif()
  endforeach()
  set(${out} "${_kept}" PARENT_SCOPE)
endfunction()

# dimgraph_add_fail_tests(<dir>)
#
# Each <dir>/*.cpp is a compile-fail case whose first lines hold the message it must produce:
#     // expect: dimgraph: dim_list: a tag appears more than once
# and, optionally, the number of errors the compiler prints in all (GCC and Clang; see
# run_fail_test.cmake), so that a mistake cannot bring a second message unnoticed:
#     // errors: 1
# Two tests are registered per case:
#   fail.<name>          compiled with -DDIMGRAPH_FAIL: passes when compilation fails and the
#                        compiler output contains the expected text;
#   fail.<name>.control  compiled without it: passes when compilation succeeds,
# so that a case can never pass by failing for some other reason.
function(dimgraph_add_fail_tests dir)
  file(GLOB _cases CONFIGURE_DEPENDS "${dir}/*.cpp")
  _dimgraph_boost_include_dirs(_system_dirs)
  string(REPLACE ";" "|" _system_dirs "${_system_dirs}")
  foreach(_case IN LISTS _cases)
    get_filename_component(_name "${_case}" NAME_WE)
    # The script reads the text itself; checking here reports a missing line at configure time.
    file(READ "${_case}" _head_of_case LIMIT 4096)
    if(NOT _head_of_case MATCHES "(^|\n)// expect: [^\r\n]*[^ \r\n]")
      message(FATAL_ERROR "dimgraph: ${_case}: missing '// expect: <message>' in its first lines")
    endif()
    foreach(_mode fail control)
      set(_test "fail.${_name}")
      if(_mode STREQUAL "control")
        set(_test "${_test}.control")
      endif()
      add_test(
        NAME "${_test}"
        COMMAND
          "${CMAKE_COMMAND}" "-DCOMPILER=${CMAKE_CXX_COMPILER}"
          "-DCOMPILER_ID=${CMAKE_CXX_COMPILER_ID}" "-DSOURCE=${_case}" "-DMODE=${_mode}"
          "-DINCLUDE_DIR=${DIMGRAPH_TESTED_INCLUDE_DIR}" "-DSYSTEM_INCLUDE_DIRS=${_system_dirs}"
          -P "${_dimgraph_helpers_dir}/run_fail_test.cmake")
      set_tests_properties("${_test}" PROPERTIES LABELS fail)
    endforeach()
  endforeach()
endfunction()

# dimgraph_add_header_checks(<target> <include dir> [EXCLUDE <regex>...])
#
# Generates one source per public header under <include dir>/dimgraph (each includes its
# header twice: it must compile alone and be guarded) and compiles them all as the OBJECT
# library <target>.
function(dimgraph_add_header_checks target include_dir)
  cmake_parse_arguments(PARSE_ARGV 2 _arg "" "" "EXCLUDE")
  file(GLOB_RECURSE _headers CONFIGURE_DEPENDS RELATIVE "${include_dir}"
       "${include_dir}/dimgraph/*.hpp")
  list(APPEND _headers dimgraph.hpp)
  foreach(_regex IN LISTS _arg_EXCLUDE)
    list(FILTER _headers EXCLUDE REGEX "${_regex}")
  endforeach()
  list(SORT _headers)
  set(_sources)
  foreach(_header IN LISTS _headers)
    string(REGEX REPLACE "[/.]" "_" _stem "${_header}")
    set(_source "${CMAKE_CURRENT_BINARY_DIR}/header_check/${_stem}.cpp")
    file(CONFIGURE OUTPUT "${_source}"
         CONTENT "// Generated: ${_header} compiles on its own and is include-guarded.\n#include <${_header}>\n#include <${_header}>\n")
    list(APPEND _sources "${_source}")
  endforeach()
  add_library(${target} OBJECT ${_sources})
  target_link_libraries(${target} PRIVATE dimgraph_dev)
endfunction()

# dimgraph_add_codegen_tests(<source> [RULE body|loop] [GCC_RULE body|loop] [CLANG_RULE body|loop])
#
# <source> holds kernels whose names follow "// codegen: " in its first lines. Registers
#   codegen.<stem>.gcc.native, codegen.<stem>.clang.native   -O3 -march=x86-64-v3 (fixed, so
#                                                            that the result does not depend
#                                                            on the machine), ymm registers
#   codegen.<stem>.gcc.O2, codegen.<stem>.clang.O2           plain -O2 (SSE2), xmm registers
# with g++ and clang++-16, each passing when every named function holds packed SIMD float
# instructions and no call: none at all (RULE body, the default) or none in its innermost
# SIMD loops (RULE loop); see run_codegen_check.cmake. RULE applies to both compilers unless
# GCC_RULE or CLANG_RULE says otherwise. A compiler that is not installed makes its test
# skipped, not failed.
function(dimgraph_add_codegen_tests source)
  cmake_parse_arguments(PARSE_ARGV 1 _arg "" "RULE;GCC_RULE;CLANG_RULE" "")
  if(NOT _arg_RULE)
    set(_arg_RULE body)
  endif()
  foreach(_label IN ITEMS GCC CLANG)
    if(NOT _arg_${_label}_RULE)
      set(_arg_${_label}_RULE ${_arg_RULE})
    endif()
  endforeach()
  _dimgraph_boost_include_dirs(_system_dirs)
  string(REPLACE ";" "|" _system_dirs "${_system_dirs}")
  # GNU objdump always: the check reads its output format, and a Clang build's CMAKE_OBJDUMP
  # is llvm-objdump, whose output differs.
  set(_objdump objdump)
  get_filename_component(_stem "${source}" NAME_WE)
  foreach(_pair IN ITEMS "gcc=g++" "clang=clang++-16")
    string(REPLACE "=" ";" _pair "${_pair}")
    list(GET _pair 0 _label)
    list(GET _pair 1 _compiler)
    string(TOUPPER "${_label}" _upper)
    set(_rule "${_arg_${_upper}_RULE}")
    foreach(_level IN ITEMS native O2)
      set(_name "codegen.${_stem}.${_label}.${_level}")
      add_test(
        NAME "${_name}"
        COMMAND
          "${CMAKE_COMMAND}" "-DCOMPILER=${_compiler}" "-DSOURCE=${source}"
          "-DINCLUDE_DIR=${DIMGRAPH_TESTED_INCLUDE_DIR}" "-DSYSTEM_INCLUDE_DIRS=${_system_dirs}"
          "-DOBJDUMP=${_objdump}" "-DRULE=${_rule}" "-DLEVEL=${_level}"
          "-DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/codegen/${_stem}/${_label}.${_level}"
          -P "${_dimgraph_helpers_dir}/run_codegen_check.cmake")
      set_tests_properties("${_name}" PROPERTIES LABELS codegen
                                                 SKIP_REGULAR_EXPRESSION "codegen: skipped")
    endforeach()
  endforeach()
endfunction()
