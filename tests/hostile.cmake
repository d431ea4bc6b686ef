# Hostile inputs (mutated scenarios and recordings, generated giants, bad flags): each ends with
# its expected exit code, within 10 s, by no signal, under 1 GiB; run in every build lane.
add_test(NAME Tidemark.Hostile.EveryHostileInputEndsWithItsExitCodeInTimeAndMemory
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/testing/hostile-corpus ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR})
set_tests_properties(Tidemark.Hostile.EveryHostileInputEndsWithItsExitCodeInTimeAndMemory PROPERTIES
                     LABELS "cli;hostile" TIMEOUT 900 COST 40)
