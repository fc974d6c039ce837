# Runs one compile-fail case (see dimgraph_add_fail_tests in dimgraphTestHelpers.cmake).
#   cmake -DCOMPILER=<c++> -DCOMPILER_ID=<GNU|Clang> -DSOURCE=<case.cpp> -DMODE=<fail|control>
#         -DINCLUDE_DIR=<dir> [-DSYSTEM_INCLUDE_DIRS=<dir|dir...>] -P run_fail_test.cmake
# MODE=fail:    compiles with -DDIMGRAPH_FAIL; passes if that fails with the expected text
#               (and, when the case has a line "// errors: N", with exactly N errors; when
#               it has a line "// names: A B ...", with the expected text and each name in the
#               first error line; with "// lines: N", in at most N lines of GCC output).
# MODE=control: compiles without it; passes if that succeeds.
# Errors are counted as lines of the compiler output that are not notes: with GCC the lines
# holding ": error: ", with Clang those holding "error: " (its closing "N errors generated."
# does not). Other compilers' errors are not counted.

foreach(_var COMPILER SOURCE MODE INCLUDE_DIR)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "run_fail_test.cmake: ${_var} is not set")
  endif()
endforeach()

# The expected text: the rest of the first line starting with "// expect: ".
# (Read as text, not as a CMake list, so that the message may contain any character.)
file(READ "${SOURCE}" _head_of_source LIMIT 4096)
if(NOT _head_of_source MATCHES "(^|\n)// expect: ([^\r\n]*)")
  message(FATAL_ERROR "${SOURCE}: missing '// expect: <message>' in its first lines")
endif()
string(STRIP "${CMAKE_MATCH_2}" _expect)
if(_expect STREQUAL "")
  message(FATAL_ERROR "${SOURCE}: the '// expect:' line is empty")
endif()

# The optional number of errors: the first line starting with "// errors: ".
set(_expect_errors "")
if(_head_of_source MATCHES "(^|\n)// errors: ([^\r\n]*)")
  string(STRIP "${CMAKE_MATCH_2}" _expect_errors)
  if(NOT _expect_errors MATCHES "^[0-9]+$")
    message(FATAL_ERROR "${SOURCE}: the '// errors:' line must give a number, not "
                        "'${_expect_errors}'")
  endif()
endif()

set(_flags -std=c++20 -fsyntax-only -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion
           -Werror -fdiagnostics-color=never)
if(COMPILER_ID STREQUAL "GNU")
  list(APPEND _flags -fmessage-length=0)
endif()
list(APPEND _flags "-I${INCLUDE_DIR}")
string(REPLACE "|" ";" _system_dirs "${SYSTEM_INCLUDE_DIRS}")
foreach(_dir IN LISTS _system_dirs)
  list(APPEND _flags -isystem "${_dir}")
endforeach()
if(MODE STREQUAL "fail")
  list(APPEND _flags -DDIMGRAPH_FAIL)
elseif(NOT MODE STREQUAL "control")
  message(FATAL_ERROR "run_fail_test.cmake: MODE must be fail or control, not '${MODE}'")
endif()

set(_command "${COMPILER}" ${_flags} "${SOURCE}")
execute_process(
  COMMAND "${CMAKE_COMMAND}" -E env LC_ALL=C ${_command}
  RESULT_VARIABLE _result
  OUTPUT_VARIABLE _output
  ERROR_VARIABLE _output)

# The optional names the first error line must hold (the dims a mistake involves): the first
# line starting with "// names: ", separated by spaces.
set(_expect_names "")
if(_head_of_source MATCHES "(^|\n)// names: ([^\r\n]*)")
  string(STRIP "${CMAKE_MATCH_2}" _names_line)
  string(REPLACE " " ";" _expect_names "${_names_line}")
endif()

# The optional most lines GCC's report may take: the first line starting with "// lines: ".
set(_expect_lines "")
if(_head_of_source MATCHES "(^|\n)// lines: ([0-9]+)")
  set(_expect_lines "${CMAKE_MATCH_2}")
endif()

# GCC writes a string inside a template argument with its quotes escaped (operand\'s): the
# expected text is looked for in the output as written and unescaped.
string(REPLACE "\\'" "'" _output "${_output}")
string(REPLACE "\\\"" "\"" _output "${_output}")

# The first lines of the compiler output, for the report of a failing case.
function(_head text count out)
  set(_head "")
  set(_rest "${text}")
  foreach(_i RANGE 1 ${count})
    string(FIND "${_rest}" "\n" _pos)
    if(_pos EQUAL -1)
      string(APPEND _head "${_rest}")
      set(_rest "")
      break()
    endif()
    math(EXPR _next "${_pos} + 1")
    string(SUBSTRING "${_rest}" 0 ${_next} _line)
    string(APPEND _head "${_line}")
    string(SUBSTRING "${_rest}" ${_next} -1 _rest)
  endforeach()
  if(NOT _rest STREQUAL "")
    string(APPEND _head "[... compiler output truncated after ${count} lines ...]\n")
  endif()
  set(${out} "${_head}" PARENT_SCOPE)
endfunction()

# The error lines of the compiler output (see the top of this file) as a list, in order, or
# "NONE" when the compiler's errors are not counted. (Characters that a CMake list would read
# as separators or brackets are replaced with "_".)
function(_error_lines text out)
  if(COMPILER_ID STREQUAL "GNU")
    set(_pattern ": error: ")
  elseif(COMPILER_ID MATCHES "Clang")
    set(_pattern "error: ")
  else()
    set(${out} "NONE" PARENT_SCOPE)
    return()
  endif()
  string(REGEX REPLACE "[][;\\]" "_" _text "${text}")
  string(REGEX MATCHALL "[^\n]*${_pattern}[^\n]*" _lines "${_text}")
  list(FILTER _lines EXCLUDE REGEX "note: ")
  set(${out} "${_lines}" PARENT_SCOPE)
endfunction()

# The number of errors in the compiler output, or "" when the compiler's errors are not counted.
function(_count_errors text out)
  _error_lines("${text}" _lines)
  if(_lines STREQUAL "NONE")
    set(${out} "" PARENT_SCOPE)
  else()
    list(LENGTH _lines _count)
    set(${out} "${_count}" PARENT_SCOPE)
  endif()
endfunction()

# The first error line of the compiler output ("" when there is none or they are not counted).
function(_first_error text out)
  _error_lines("${text}" _lines)
  set(_line "")
  if(_lines AND NOT _lines STREQUAL "NONE")
    list(GET _lines 0 _line)
  endif()
  set(${out} "${_line}" PARENT_SCOPE)
endfunction()

# Reports go to stderr unformatted (message() without a mode), then the test fails.
string(REPLACE ";" " " _command_line "${_command}")
if(MODE STREQUAL "fail")
  if(_result EQUAL 0)
    message("${_command_line}\n${_output}")
    message(FATAL_ERROR "compiled, but must fail with: ${_expect}")
  endif()
  string(FIND "${_output}" "${_expect}" _pos)
  if(_pos EQUAL -1)
    _head("${_output}" 60 _shown)
    message("${_command_line}\n${_shown}")
    message(FATAL_ERROR "failed to compile as it must, but the output above lacks the "
                        "expected text: ${_expect}")
  endif()
  if(NOT _expect_errors STREQUAL "")
    _count_errors("${_output}" _errors)
    if(NOT _errors STREQUAL "" AND NOT _errors EQUAL _expect_errors)
      _head("${_output}" 60 _shown)
      message("${_command_line}\n${_shown}")
      message(FATAL_ERROR "failed with the expected text, but with ${_errors} errors instead of "
                          "${_expect_errors} (one mistake, one message)")
    endif()
  endif()
  if(_expect_names)
    # The mistake's own line says all of it: the message, and the dims by name.
    _first_error("${_output}" _first)
    if(NOT _first STREQUAL "")
      string(REGEX REPLACE "[][;\\]" "_" _expect_in_line "${_expect}")  # (as _error_lines)
      string(FIND "${_first}" "${_expect_in_line}" _expect_pos)
      if(_expect_pos EQUAL -1)
        _head("${_output}" 60 _shown)
        message("${_command_line}\n${_shown}")
        message(FATAL_ERROR "the expected text is not in the first error line: ${_first}")
      endif()
    endif()
    foreach(_name IN LISTS _expect_names)
      string(FIND "${_first}" "${_name}" _name_pos)
      if(_name_pos EQUAL -1)
        _head("${_output}" 60 _shown)
        message("${_command_line}\n${_shown}")
        message(FATAL_ERROR "failed with the expected text, but the first error line does not "
                            "name ${_name}: ${_first}")
      endif()
    endforeach()
  endif()
  if(NOT _expect_lines STREQUAL "" AND COMPILER_ID STREQUAL "GNU")
    string(REGEX MATCHALL "\n" _newlines "${_output}")
    list(LENGTH _newlines _line_count)
    if(_line_count GREATER _expect_lines)
      _head("${_output}" 60 _shown)
      message("${_command_line}\n${_shown}")
      message(FATAL_ERROR "the report takes ${_line_count} lines; at most ${_expect_lines}")
    endif()
  endif()
  message("fails as expected with: ${_expect}")
else()
  if(NOT _result EQUAL 0)
    _head("${_output}" 60 _shown)
    message("${_command_line}\n${_shown}")
    message(FATAL_ERROR "the control (without DIMGRAPH_FAIL) must compile, but does not")
  endif()
  message("control compiles")
endif()
