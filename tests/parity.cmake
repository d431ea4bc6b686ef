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
# Every scenario in every lane is the nightly's (label nightly; scripts/nightly's parity step also
# replays each recording): CI's slice is the wire-buffers group and the fixture, the scenarios
# about the wire the lanes differ in (a few seconds), and the kgsl group below.
set_tests_properties(Tidemark.Parity.EveryScenarioGivesOneDigestInEveryLane PROPERTIES LABELS "parity;nightly" COST 30)
add_test(NAME Tidemark.Parity.TheWireBuffersGroupAndTheFixtureGiveOneDigestInEveryLane
         COMMAND $<TARGET_FILE:tidemark> parity ${PROJECT_SOURCE_DIR}/scenarios/magma-wire-buffers ${PROJECT_SOURCE_DIR}/fixtures
                 --report ${PROJECT_BINARY_DIR}/reports/parity-wire-buffers)
set_tests_properties(Tidemark.Parity.TheWireBuffersGroupAndTheFixtureGiveOneDigestInEveryLane PROPERTIES LABELS parity)

# The committed digests (digests.txt, every scenario test's --digests) hold across commits: a run
# whose digest is another than its committed one is red, naming both; one with none committed is red
# too; and a file that is no digests file is bad input before anything runs.
add_test(NAME Tidemark.Parity.ARunWhoseDigestIsNotTheCommittedOneIsRedNamingBoth
         COMMAND ${expect_exit} 1 "DIGEST CHANGED Magma\\.Monolith\\.WireBuffers\\.sub-data-into-a-busy-store-lands-between-the-draws: digest [0-9a-f]{16} of wire-buffers/sub-data-into-a-busy-store-lands-between-the-draws, committed 0123456789abcdef"
                 $<TARGET_FILE:tidemark> run --digests ${testdata}/digests/a-changed-digest.txt ${small_scenario}
                 --report ${PROJECT_BINARY_DIR}/reports/digest-changed)
add_test(NAME Tidemark.Parity.ARunWithNoCommittedDigestIsRed
         COMMAND ${expect_exit} 1 "DIGEST CHANGED .*: digest [0-9a-f]{16} of wire-buffers/sub-data-into-a-busy-store-lands-between-the-draws has no committed digest"
                 $<TARGET_FILE:tidemark> run --digests ${testdata}/digests/another-subject-only.txt ${small_scenario}
                 --report ${PROJECT_BINARY_DIR}/reports/digest-none)
add_test(NAME Tidemark.Parity.TheCommittedDigestsHoldTheSmallScenario
         COMMAND ${expect_exit} 0 "1 green, 0 red"
                 $<TARGET_FILE:tidemark> run --digests ${PROJECT_SOURCE_DIR}/digests.txt ${small_scenario}
                 --report ${PROJECT_BINARY_DIR}/reports/digest-held)
add_test(NAME Tidemark.Parity.ADigestsFileThatIsNoneIsBadInputBeforeAnythingRuns
         COMMAND ${expect_exit} 2 "expectations\\.txt:[0-9]+:1: expected 'group/name digest'"
                 $<TARGET_FILE:tidemark> run --digests ${PROJECT_SOURCE_DIR}/expectations.txt ${small_scenario}
                 --report ${PROJECT_BINARY_DIR}/reports/digest-bad)
set_tests_properties(Tidemark.Parity.ARunWhoseDigestIsNotTheCommittedOneIsRedNamingBoth
                     Tidemark.Parity.ARunWithNoCommittedDigestIsRed Tidemark.Parity.TheCommittedDigestsHoldTheSmallScenario
                     Tidemark.Parity.ADigestsFileThatIsNoneIsBadInputBeforeAnythingRuns
                     PROPERTIES LABELS "parity;cli" TIMEOUT 60)
