# Red-once: every scenario's controls linted, the mutant catalogue against the build, and a
# control that names the wrong check (the per-scenario RedOnce.* tests are registered with the
# scenario tests).
if(TIDEMARK_MUTANTS)
  add_test(NAME Tidemark.Lint.EveryScenarioHasAControlEveryCheckIsNamedAndEveryMutantIsKilled
           COMMAND $<TARGET_FILE:tidemark> lint ${PROJECT_SOURCE_DIR}/scenarios ${PROJECT_SOURCE_DIR}/fixtures
                   ${PROJECT_SOURCE_DIR}/captures --expectations ${PROJECT_SOURCE_DIR}/expectations.txt)
  set_tests_properties(Tidemark.Lint.EveryScenarioHasAControlEveryCheckIsNamedAndEveryMutantIsKilled PROPERTIES LABELS "red-once;lint")
  # red_once/mutants.md is what this build's catalogue prints.
  add_test(NAME Tidemark.Mutants.TheCommittedCatalogueMatchesTheBuild
           COMMAND ${CMAKE_COMMAND} -DTIDEMARK=$<TARGET_FILE:tidemark>
                   -DCATALOGUE=${PROJECT_SOURCE_DIR}/red_once/mutants.md
                   -P ${PROJECT_SOURCE_DIR}/cmake/CompareCatalogue.cmake)
  set_tests_properties(Tidemark.Mutants.TheCommittedCatalogueMatchesTheBuild PROPERTIES LABELS red-once)
endif()
# The release build carries no mutant names; the default build's copy of the same check
# proves the check can see them.
add_test(NAME Tidemark.Mutants.BinariesCarryMutantNamesOnlyWhenBuiltIn
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/testing/mutant-names
                 $<IF:$<BOOL:${TIDEMARK_MUTANTS}>,present,absent> ${PROJECT_SOURCE_DIR}/red_once/mutants.md
                 $<TARGET_FILE:tidemark> $<TARGET_FILE:tidemark-server>)
set_tests_properties(Tidemark.Mutants.BinariesCarryMutantNamesOnlyWhenBuiltIn PROPERTIES LABELS "red-once;release")
if(TIDEMARK_MUTANTS)
  add_test(NAME Tidemark.RedOnce.AControlNamingTheWrongCheckIsAWrongRed
           COMMAND ${expect_exit} 1 "cli-testdata/control-expecting-the-wrong-check \\[monolith\\] mutant=memo.no_destroy_epoch: wrong red: expected exactly gauge\\[0\\] to fail, but failed: `12 bands of palette colours"
                   $<TARGET_FILE:tidemark> red-once --lane monolith --ledger ${PROJECT_BINARY_DIR}/no-ledger.txt
                   ${testdata}/control-expecting-the-wrong-check.yaml
                   --report ${PROJECT_BINARY_DIR}/reports/wrong-red)
  add_test(NAME Tidemark.Lint.AScenarioWithoutControlsFails
           COMMAND ${expect_exit} 1 "scenario-without-controls.yaml:1:1: expected at least one control \\(controls:\\), found none"
                   $<TARGET_FILE:tidemark> lint ${testdata}/scenario-without-controls.yaml)
  add_test(NAME Tidemark.Lint.ACheckNoControlNamesFails
           COMMAND ${expect_exit} 1 "a-check-no-control-names.yaml:1:1: expected a control naming `wdefsync == 0` under fails: .*found none"
                   $<TARGET_FILE:tidemark> lint ${testdata}/a-check-no-control-names.yaml)
  set_tests_properties(Tidemark.RedOnce.AControlNamingTheWrongCheckIsAWrongRed Tidemark.Lint.AScenarioWithoutControlsFails
                       Tidemark.Lint.ACheckNoControlNamesFails PROPERTIES LABELS "red-once;cli")
endif()
