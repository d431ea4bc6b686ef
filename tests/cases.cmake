# The cases' runner (scripts/case) fails each kind of step that does not hold, names the file, line
# and column of the step, and refuses a case file it cannot read as bad input (exit 2).
set(failing_cases ${PROJECT_SOURCE_DIR}/tests/testdata/cases-that-fail)
foreach(failing IN ITEMS
        "wrong-exit|1|wrong-exit.yaml:3:5: step 1 \\(run\\): expected exit 0, found exit 3"
        "missing-line|1|missing-line.yaml:3:5: step 1 \\(run\\): expected a line matching /\\^the line\\$/, found none"
        "json-not-all|1|step 2 \\(json\\): expected every value to be 'green', found d.json at 'rows\\[\\*\\].v': \\[\"green\", \"red\"\\]"
        "json-pattern|1|step 3 \\(json\\): expected one value throughout, found \\*/d.json at 'v': \\[\"1\", \"2\"\\]"
        "json-not-one-value|1|step 2 \\(json\\): expected one value throughout, found d.json at 'b.\\*.h': \\[\"1\", \"2\"\\]"
        "same-pattern|1|step 4 \\(same\\): expected c.json at 'v\\[\\*\\]' to be what \\*/d.json has, found \\[1, 3\\] against \\[1, 2\\]"
        "not-the-same|1|step 3 \\(same\\): expected b.json at 'r\\[\\*\\]' to be what a.json has, found \\[2, 1\\] against \\[1, 2\\]"
        "left-running|1|left-running.yaml: expected nothing the case started left running, found:"
        "not-killed|1|not-killed.yaml:3:5: step 1 \\(run\\): expected a kill by signal 11 \\(SIGSEGV\\), found exit 139"
        "regex-escaped|1|regex-escaped.yaml:5:5: step 1 \\(run\\): expected a line matching /\\^a\\\\\\.c\\$/, found none"
        "edit-nothing-there|1|step 2 \\(edit\\): expected a field at 'results\\[\\?test=b\\].gauges.x' in d.json, found none"
        "not-identical|1|step 3 \\(identical\\): expected b.txt to hold the bytes of a.txt, found 8 bytes that differ from its 4"
        "case-env|1|case-env.yaml:4:5: step 1 \\(run\\): expected exit 0, found exit 1"
        "number-not-above-a-variable|1|number-not-above-a-variable.yaml:7:5: step 3 \\(number\\): expected a number above 12, found 12"
        "unknown-key|2|unknown-key.yaml:4:5: expected one of \\(capture, .*, run\\) in a run step, found 'exits'")
  string(REPLACE "|" ";" fields "${failing}")
  list(GET fields 0 name)
  list(GET fields 1 code)
  list(GET fields 2 says)
  add_test(NAME Tidemark.Cases.TheRunnerFails.${name}
           COMMAND ${expect_exit} ${code} "${says}" python3 ${PROJECT_SOURCE_DIR}/scripts/case run
                   --build ${PROJECT_BINARY_DIR} ${failing_cases}/${name}.yaml)
  set_tests_properties(Tidemark.Cases.TheRunnerFails.${name} PROPERTIES LABELS "cases;cli")
endforeach()
# A case's register_if: registered where its programs are and the build's settings are as it says.
add_test(NAME Tidemark.Cases.ACaseIsRegisteredOnlyWhereItsConditionHolds
         COMMAND ${CMAKE_COMMAND} -E env EXPECT_ABSENT=Cases.Registered.Never
                 ${expect_exit} 0 "add_test\\(Cases.Registered.Always " python3 ${PROJECT_SOURCE_DIR}/scripts/case register
                 --ctest-file /dev/stdout --source ${PROJECT_SOURCE_DIR} --build ${PROJECT_BINARY_DIR}
                 --define TIDEMARK_SANITIZED=OFF ${PROJECT_SOURCE_DIR}/tests/testdata/cases-registered)
set_tests_properties(Tidemark.Cases.ACaseIsRegisteredOnlyWhereItsConditionHolds PROPERTIES LABELS "cases;cli")
# A ctest value names {source}, {build} or a setting register was given, and no other.
add_test(NAME Tidemark.Cases.ACtestValueNamesOnlyTheSettingsRegisterWasGiven
         COMMAND ${expect_exit} 2 "unknown-setting.yaml:1:1: expected \\{source\\}, \\{build\\} or a setting register was given \\(TIDEMARK_SANITIZED\\) in ctest's ENVIRONMENT, found 'NO_SUCH_SETTING'"
                 python3 ${PROJECT_SOURCE_DIR}/scripts/case register --ctest-file /dev/null --source ${PROJECT_SOURCE_DIR}
                 --build ${PROJECT_BINARY_DIR} --define TIDEMARK_SANITIZED=OFF ${PROJECT_SOURCE_DIR}/tests/testdata/cases-registered-badly)
set_tests_properties(Tidemark.Cases.ACtestValueNamesOnlyTheSettingsRegisterWasGiven PROPERTIES LABELS "cases;cli")
