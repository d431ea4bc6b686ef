# Parity: every scenario gives one digest in all four lanes on each backend it lists, and so
# does the replay of its recording in each lane.
add_test(NAME Tidemark.Parity.EveryScenarioAndItsReplayGiveOneDigestInEveryLane
         COMMAND $<TARGET_FILE:tidemark> parity --replay ${PROJECT_SOURCE_DIR}/scenarios/magma-reclaim
                 ${PROJECT_SOURCE_DIR}/scenarios/portable
                 ${PROJECT_SOURCE_DIR}/scenarios/magma-wire-buffers ${PROJECT_SOURCE_DIR}/scenarios/gpumem
                 ${PROJECT_SOURCE_DIR}/scenarios/kmd ${PROJECT_SOURCE_DIR}/scenarios/kgsl ${PROJECT_SOURCE_DIR}/scenarios/counters
                 ${PROJECT_SOURCE_DIR}/fixtures
                 --report ${PROJECT_BINARY_DIR}/reports/parity)
set_tests_properties(Tidemark.Parity.EveryScenarioAndItsReplayGiveOneDigestInEveryLane PROPERTIES LABELS parity COST 30)
# Digests saved by one build and compared by another (the build-lane parity of scripts/nightly).
add_test(NAME Tidemark.Parity.SavedDigestsMatchTheirOwnBuildAndNameADifference
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/testing/parity-against $<TARGET_FILE:tidemark>
                 ${PROJECT_SOURCE_DIR}/scenarios/kgsl)
set_tests_properties(Tidemark.Parity.SavedDigestsMatchTheirOwnBuildAndNameADifference PROPERTIES LABELS "parity;cli")
