# Known failures (expectations.txt): a stale line (its run is green) fails the run; a line for a
# scenario that is gone is a lint problem; a line without its reason is bad input at its end.
set(expectations_data ${testdata}/expectations)
add_test(NAME Tidemark.Expectations.AnUnexpectedPassFailsTheRun
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/expect-exit 1 "unexpected pass: .*stale.txt:2:1: expected red on gauge\\[0\\]"
                 $<TARGET_FILE:tidemark> run --expectations ${expectations_data}/stale.txt --report ${PROJECT_BINARY_DIR}/reports/stale
                 ${PROJECT_SOURCE_DIR}/scenarios/portable/respecifies-with-no-draw-between-keep-live-buffers-bounded.yaml)
add_test(NAME Tidemark.Expectations.ALineForAScenarioThatIsGoneIsALintProblem
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/expect-exit 1 "gone.txt:2:1: expected a scenario of the set, found 'portable/a-scenario-that-was-renamed', which no longer exists"
                 $<TARGET_FILE:tidemark> lint ${PROJECT_SOURCE_DIR}/scenarios --expectations ${expectations_data}/gone.txt)
add_test(NAME Tidemark.Expectations.ALineWithoutItsReasonIsBadInput
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/expect-exit 2 "no-reason.txt:2:[0-9]+: expected '# why', with the value measured, found no reason"
                 $<TARGET_FILE:tidemark> run --expectations ${expectations_data}/no-reason.txt
                 ${PROJECT_SOURCE_DIR}/scenarios/portable/respecifies-with-no-draw-between-keep-live-buffers-bounded.yaml)
set_tests_properties(Tidemark.Expectations.AnUnexpectedPassFailsTheRun
                     Tidemark.Expectations.ALineForAScenarioThatIsGoneIsALintProblem
                     Tidemark.Expectations.ALineWithoutItsReasonIsBadInput PROPERTIES LABELS "cli")
