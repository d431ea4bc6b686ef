# A driver that crashes ends its subject's isolated child, not the run (runner/isolation.h): the
# layer raises SIGSEGV beneath one scenario of magma-reclaim in the monolith lane, which is a crash
# naming the signal, the child and its last step, the same step in the split lane; the other four
# run green; summary.json and junit.xml hold all five; an expectations line naming `crash` makes it
# an expected red and a run that stopped crashing an unexpected pass; with --no-isolation, the
# control, Tidemark itself dies (scripts/testing/crash-isolated).
add_test(NAME Tidemark.Isolation.ADriverThatCrashesIsAVerdictAndTheOtherScenariosRun
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/testing/crash-isolated ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
set_tests_properties(Tidemark.Isolation.ADriverThatCrashesIsAVerdictAndTheOtherScenariosRun PROPERTIES LABELS cli)
