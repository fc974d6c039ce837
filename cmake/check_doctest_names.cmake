# Fails when a doctest test case name contains ';': doctest_discover_tests would split it into
# tests that match nothing and pass without running.
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
