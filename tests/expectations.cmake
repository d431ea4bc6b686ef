# Known failures (expectations.txt): a stale line (its run is green) fails the run; a line for a
# scenario that is gone is a lint problem; a line without its reason is bad input at its end.
set(expectations_data ${testdata}/expectations)
add_test(NAME Tidemark.Expectations.AnUnexpectedPassFailsTheRun
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/expect-exit 1 "unexpected pass: .*stale.txt:2:1: expected red on gauge\\[0\\]"
                 $<TARGET_FILE:tidemark> run --expectations ${expectations_data}/stale.txt --report ${PROJECT_BINARY_DIR}/reports/stale
                 ${PROJECT_SOURCE_DIR}/scenarios/portable/respecifies-with-no-draw-between-keep-live-buffers-bounded.yaml)
add_test(NAME Tidemark.Expectations.ALineForAScenarioThatIsGoneIsALintProblem
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/expect-exit 1 "gone.txt:2:1: expected a scenario or capture fixture of the set, found 'portable/a-scenario-that-was-renamed', which no longer exists"
                 $<TARGET_FILE:tidemark> lint ${PROJECT_SOURCE_DIR}/scenarios --expectations ${expectations_data}/gone.txt)
add_test(NAME Tidemark.Expectations.ALineWithoutItsReasonIsBadInput
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/expect-exit 2 "no-reason.txt:2:[0-9]+: expected '# why', with the value measured, found no reason"
                 $<TARGET_FILE:tidemark> run --expectations ${expectations_data}/no-reason.txt
                 ${PROJECT_SOURCE_DIR}/scenarios/portable/respecifies-with-no-draw-between-keep-live-buffers-bounded.yaml)
set_tests_properties(Tidemark.Expectations.AnUnexpectedPassFailsTheRun
                     Tidemark.Expectations.ALineForAScenarioThatIsGoneIsALintProblem
                     Tidemark.Expectations.ALineWithoutItsReasonIsBadInput PROPERTIES LABELS "cli")

# Nothing judged is never green: compare on a backend that lacks what a scenario's checks read is
# NOT JUDGED and fails (it exited 0), unless an expectations line says `not-judged` for it.
set(count_ceiling ${PROJECT_SOURCE_DIR}/scenarios/portable/many-small-respecify-and-draw-rounds-stay-under-a-count-ceiling.yaml)
add_test(NAME Tidemark.Expectations.ABackendThatCannotJudgeFailsCompare
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/expect-exit 1 "gl-llvmpipe +NOT JUDGED +.*found 'wlivepk', a device gauge"
                 $<TARGET_FILE:tidemark> compare ${count_ceiling} --backend gl-llvmpipe --report ${PROJECT_BINARY_DIR}/reports/not-judged)
add_test(NAME Tidemark.Expectations.ANotJudgedLineMakesItAKnownFailure
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/expect-exit 0 "gl-llvmpipe +EXPECTED RED +not judged, as .*not-judged.txt:3:1 says"
                 $<TARGET_FILE:tidemark> compare ${count_ceiling} --backend gl-llvmpipe
                 --expectations ${expectations_data}/not-judged.txt --report ${PROJECT_BINARY_DIR}/reports/not-judged-known)
# docs/drivers.md's step 3 tells a user to write gl-native lines for scenarios that list gl: lint takes them.
add_test(NAME Tidemark.Expectations.LintTakesTheGlNativeLinesReadmeTellsUsersToWrite
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/expect-exit 0 "lint: [0-9]+ scenarios, 0 problems"
                 $<TARGET_FILE:tidemark> lint ${PROJECT_SOURCE_DIR}/scenarios ${PROJECT_SOURCE_DIR}/fixtures
                 --expectations ${expectations_data}/gl-native-mesa.txt)
set_tests_properties(Tidemark.Expectations.ABackendThatCannotJudgeFailsCompare
                     Tidemark.Expectations.ANotJudgedLineMakesItAKnownFailure
                     Tidemark.Expectations.LintTakesTheGlNativeLinesReadmeTellsUsersToWrite PROPERTIES LABELS "cli;zink"
                     ENVIRONMENT_MODIFICATION "ASAN_OPTIONS=string_append::detect_leaks=0")

# Measured values on a known failure's line (gauge=value): a run worse than the line is red, a
# run better is an expected red that says the line should be brought down; a line for a driver
# build (gl@NAME) outranks the line for any build under that build only.
set(two_hundred ${PROJECT_SOURCE_DIR}/scenarios/portable/two-hundred-1-mib-respecify-and-draw-rounds-in-one-frame-keep-device-bytes-within-the-budget.yaml)
add_test(NAME Tidemark.Expectations.AKnownFailureThatGotWorseFailsTheRun
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/expect-exit 1 "known failure got worse: devbytespk 100000000 -> 218103808 \\(\\+118%\\) \\(.*measured-values.txt:5:1"
                 $<TARGET_FILE:tidemark> run ${two_hundred} --backend gl --lane monolith
                 --expectations ${expectations_data}/measured-values.txt --report ${PROJECT_BINARY_DIR}/reports/got-worse)
add_test(NAME Tidemark.Expectations.ALineForTheDriverBuildOutranksTheLineForAny
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/expect-exit 0 "EXPECTED RED Magma.Monolith.Portable.two-hundred.*@gl"
                 $<TARGET_FILE:tidemark> --drivers ${PROJECT_SOURCE_DIR}/drivers.yaml --driver mesa-22.3.6
                 run ${two_hundred} --backend gl --lane monolith
                 --expectations ${expectations_data}/measured-values.txt --report ${PROJECT_BINARY_DIR}/reports/build-line)
add_test(NAME Tidemark.Expectations.AKnownFailureThatGotBetterIsReported
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/expect-exit 0 "measured values moved: devbytespk 300000000 -> 218103808 \\(-27%\\) improved; update .*got-better.txt:3:1"
                 $<TARGET_FILE:tidemark> run ${two_hundred} --backend gl --lane monolith
                 --expectations ${expectations_data}/got-better.txt --report ${PROJECT_BINARY_DIR}/reports/got-better)
add_test(NAME Tidemark.Expectations.AMeasuredValueThatIsNotANumberIsBadInput
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/expect-exit 2 "bad-value.txt:2:[0-9]+: expected a whole number for devbytespk, found '200MiB'"
                 $<TARGET_FILE:tidemark> run ${two_hundred} --expectations ${expectations_data}/bad-value.txt)
set_tests_properties(Tidemark.Expectations.AKnownFailureThatGotWorseFailsTheRun
                     Tidemark.Expectations.ALineForTheDriverBuildOutranksTheLineForAny
                     Tidemark.Expectations.AKnownFailureThatGotBetterIsReported
                     Tidemark.Expectations.AMeasuredValueThatIsNotANumberIsBadInput PROPERTIES LABELS "cli;zink"
                     ENVIRONMENT_MODIFICATION "ASAN_OPTIONS=string_append::detect_leaks=0")

# Runs held to a baseline: tests/cases/expectations/a-run-worse-than-its-baseline-fails-naming-both-values.yaml.
add_test(NAME Tidemark.Baseline.AToleranceWithoutABaselineIsBadInput
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/expect-exit 2 "--tolerance: expected --baseline too, found none"
                 $<TARGET_FILE:tidemark> run ${two_hundred} --tolerance devbytespk=5%)
add_test(NAME Tidemark.Baseline.AFolderWithoutASummaryIsBadInput
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/expect-exit 2 "--baseline .*: expected a report folder with its summary.json, found a folder without one"
                 $<TARGET_FILE:tidemark> run ${two_hundred} --baseline ${expectations_data})
set_tests_properties(Tidemark.Baseline.AToleranceWithoutABaselineIsBadInput
                     Tidemark.Baseline.AFolderWithoutASummaryIsBadInput PROPERTIES LABELS "cli")

# tidemark rebase on real report folders: tests/cases/rebase/. A folder that is no report:
add_test(NAME Tidemark.Rebase.AFolderThatIsNoReportIsBadInput
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/expect-exit 2 "expected a report folder with summary.json .* or red-once.json .*, found neither"
                 $<TARGET_FILE:tidemark> rebase ${expectations_data} --baseline ${PROJECT_BINARY_DIR}/reports/no-baseline)
set_tests_properties(Tidemark.Rebase.AFolderThatIsNoReportIsBadInput PROPERTIES LABELS "cli;zink"
                     ENVIRONMENT_MODIFICATION "ASAN_OPTIONS=string_append::detect_leaks=0")
