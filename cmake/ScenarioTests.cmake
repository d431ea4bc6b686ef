# Every scenario registers itself: when ctest starts, `tidemark list --ctest-file` reads
# the scenario folders and writes one add_test per scenario, so adding a YAML file adds a
# test with no CMake edit and no re-configure.
set(TIDEMARK_SCENARIO_DIRS ${PROJECT_SOURCE_DIR}/scenarios ${PROJECT_SOURCE_DIR}/fixtures)
set(registrations ${PROJECT_BINARY_DIR}/tidemark_scenario_tests.cmake)
set(generated ${PROJECT_BINARY_DIR}/tidemark_scenario_tests.generated.cmake)
file(WRITE ${registrations}.in "
execute_process(
  COMMAND [=[$<TARGET_FILE:tidemark>]=] list ${TIDEMARK_SCENARIO_DIRS}
          --ctest-file [=[${generated}]=]
          --tidemark [=[$<TARGET_FILE:tidemark>]=]
          --report-root [=[${PROJECT_BINARY_DIR}/reports]=]
          --ledger [=[${PROJECT_SOURCE_DIR}/red_once/ledger.txt]=]
          --expectations [=[${PROJECT_SOURCE_DIR}/expectations.txt]=]
  RESULT_VARIABLE listed ERROR_VARIABLE list_error)
if(listed EQUAL 0)
  include([=[${generated}]=])
else()
  # A broken scenario set must show as a failing test, not as fewer tests.
  add_test(Magma.ScenarioSet.Loads [=[${CMAKE_COMMAND}]=] -E echo \"\${list_error}\")
  set_tests_properties(Magma.ScenarioSet.Loads PROPERTIES WILL_FAIL TRUE
    LABELS \"integration-magma-monolith\")
endif()
")
file(GENERATE OUTPUT ${registrations} INPUT ${registrations}.in)
set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${registrations})
