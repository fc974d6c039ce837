# Fails when a doctest test case name contains ';' or unbalanced '[' ']': doctest_discover_tests
# would split the first into tests that match nothing and pass without running, and the second
# breaks the generated add_test() call so that ctest registers nothing at all.
#   cmake -DTEST_EXECUTABLE=<path> -P check_doctest_names.cmake
execute_process(
  COMMAND "${TEST_EXECUTABLE}" --list-test-cases
  RESULT_VARIABLE _result
  OUTPUT_VARIABLE _output
  ERROR_VARIABLE _output)
if(NOT _result EQUAL 0)
  message(FATAL_ERROR "${TEST_EXECUTABLE} --list-test-cases failed:\n${_output}")
endif()
string(FIND "${_output}" ";" _pos)
if(NOT _pos EQUAL -1)
  message("${_output}")
  message(FATAL_ERROR "a TEST_CASE name above contains ';', which ctest cannot register: "
                      "reword it (use ',' or ':')")
endif()
string(REGEX MATCHALL "\\[" _open "${_output}")
string(REGEX MATCHALL "\\]" _close "${_output}")
list(LENGTH _open _open_count)
list(LENGTH _close _close_count)
if(NOT _open_count EQUAL _close_count)
  message("${_output}")
  message(FATAL_ERROR "a TEST_CASE name above has unbalanced '[' or ']' (${_open_count} vs "
                      "${_close_count}), which ctest cannot register: reword it")
endif()
