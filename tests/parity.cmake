# Parity: every scenario gives one digest in all four lanes on each backend it lists. The replay
# of each one's recording in every lane (parity --replay, twice the time) is the nightly's parity
# step; the Tidemark.Replay.* tests replay recordings in every lane here.
add_test(NAME Tidemark.Parity.EveryScenarioGivesOneDigestInEveryLane
         COMMAND $<TARGET_FILE:tidemark> parity ${PROJECT_SOURCE_DIR}/scenarios/magma-reclaim
                 ${PROJECT_SOURCE_DIR}/scenarios/portable
                 ${PROJECT_SOURCE_DIR}/scenarios/magma-wire-buffers ${PROJECT_SOURCE_DIR}/scenarios/gpumem
                 ${PROJECT_SOURCE_DIR}/scenarios/kmd ${PROJECT_SOURCE_DIR}/scenarios/kgsl ${PROJECT_SOURCE_DIR}/scenarios/counters
                 ${PROJECT_SOURCE_DIR}/fixtures
                 --report ${PROJECT_BINARY_DIR}/reports/parity)
set_tests_properties(Tidemark.Parity.EveryScenarioGivesOneDigestInEveryLane PROPERTIES LABELS parity COST 30)
# Digests saved by one build and compared by another (the build-lane parity of scripts/nightly).
add_test(NAME Tidemark.Parity.SavedDigestsMatchTheirOwnBuildAndNameADifference
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/testing/parity-against $<TARGET_FILE:tidemark>
                 ${PROJECT_SOURCE_DIR}/scenarios/kgsl)
set_tests_properties(Tidemark.Parity.SavedDigestsMatchTheirOwnBuildAndNameADifference PROPERTIES LABELS "parity;cli")
