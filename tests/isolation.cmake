# A driver that crashes ends its subject's isolated child, not the run (runner/isolation.h): the
# layer raises SIGSEGV beneath one scenario of magma-reclaim in the monolith lane, which is a crash
# naming the signal, the child and its last step, the same step in the split lane; the other four
# run green; summary.json and junit.xml hold all five; an expectations line naming `crash` makes it
# an expected red and a run that stopped crashing an unexpected pass; with --no-isolation, the
# control, Tidemark itself dies (scripts/testing/crash-isolated).
add_test(NAME Tidemark.Isolation.ADriverThatCrashesIsAVerdictAndTheOtherScenariosRun
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/testing/crash-isolated ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
set_tests_properties(Tidemark.Isolation.ADriverThatCrashesIsAVerdictAndTheOtherScenariosRun PROPERTIES LABELS cli)
# run's schedule changes no result (runner/schedule.h): kmd, magma-wire-buffers and counters in the
# selection's order, shuffled, and two at once in two children give the same records, digests and
# order in summary.json and junit.xml (scripts/testing/run-schedule); --skip and --include files
# skip what they match (or miss), saying which line, a bad pattern is bad input at its place, and
# --max-fails 1 leaves the rest not run (scripts/testing/run-selection).
add_test(NAME Tidemark.Schedule.ShuffledAndParallelRunsGiveTheSameRecordsInTheSameOrder
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/testing/run-schedule ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
add_test(NAME Tidemark.Schedule.SkipIncludeAndMaxFailsChooseWhatRunsAndNameWhyTheRestDidNot
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/testing/run-selection ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
set_tests_properties(Tidemark.Schedule.ShuffledAndParallelRunsGiveTheSameRecordsInTheSameOrder
                     Tidemark.Schedule.SkipIncludeAndMaxFailsChooseWhatRunsAndNameWhyTheRestDidNot
                     PROPERTIES LABELS cli)
