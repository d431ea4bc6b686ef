# Fixture ID-P7-43: red in 100 of 100 runs in every lane under the broken variant, green in
# 100 of 100 with the fix. One digest across the 100 runs (else the determinism check fails)
# means every run read the same pixels. The spawn and tcp lanes' loops are the nightly's (label
# nightly: they serve the session over the codec the split lane's loop already crosses, at 19 s
# each); every lane still runs the fixture once in CI (Magma.*).
if(TIDEMARK_MUTANTS)
  foreach(lane monolith split spawn tcp)
    add_test(NAME Fixture.ID-P7-43.${lane}.RedIn100Of100RunsUnderTheBrokenMemo
             COMMAND ${expect_exit} 1 "failed pixels .*read rgba\\(200,60,30,255\\), wanted rgba\\(60,200,90,255\\)"
                     $<TARGET_FILE:tidemark> run --lane ${lane} --repeat 100 --mutant memo.no_destroy_epoch ${aba_fixture}
                     --report ${PROJECT_BINARY_DIR}/reports/aba-red-${lane})
    add_test(NAME Fixture.ID-P7-43.${lane}.GreenIn100Of100RunsWithTheFix
             COMMAND $<TARGET_FILE:tidemark> run --lane ${lane} --repeat 100 ${aba_fixture}
                     --report ${PROJECT_BINARY_DIR}/reports/aba-green-${lane})
    set(nightly "")
    if(lane STREQUAL "spawn" OR lane STREQUAL "tcp")
      set(nightly ";nightly")
    endif()
    set_tests_properties(Fixture.ID-P7-43.${lane}.RedIn100Of100RunsUnderTheBrokenMemo PROPERTIES
                         LABELS "fixture;integration-magma-reclaim${nightly}" ENVIRONMENT "EXPECT_ABSENT=failed determinism")
    set_tests_properties(Fixture.ID-P7-43.${lane}.GreenIn100Of100RunsWithTheFix PROPERTIES
                         LABELS "fixture;integration-magma-reclaim${nightly}")
  endforeach()
  # The red run reads stale but valid memory: the validation layer stays quiet.
  add_test(NAME Fixture.ID-P7-43.TheRedRunIsCleanUnderTheValidationLayer
           COMMAND ${expect_exit} 1 "failed pixels"
                   $<TARGET_FILE:tidemark> run --validation --mutant memo.no_destroy_epoch ${aba_fixture}
                   --report ${PROJECT_BINARY_DIR}/reports/aba-validation)
  set_tests_properties(Fixture.ID-P7-43.TheRedRunIsCleanUnderTheValidationLayer PROPERTIES
                       LABELS "fixture;validation"
                       ENVIRONMENT "EXPECT_ABSENT=failed validation;ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0")
endif()
# `tidemark fixture new` writes a skeleton that loads and runs green but fails red-once until
# its control is made real.
add_test(NAME Tidemark.Fixture.NewWritesASkeletonThatFailsRedOnceUntilFilledIn
         COMMAND bash -c "set -e; dir=$0/fixture-new; rm -rf $dir; $1 fixture new ID-X-1 --root $dir; \
$1 run $dir --report $dir-report; if $1 red-once --lane monolith --ledger $dir/none $dir --report $dir-report; then exit 1; fi"
                 ${PROJECT_BINARY_DIR} $<TARGET_FILE:tidemark>)
set_tests_properties(Tidemark.Fixture.NewWritesASkeletonThatFailsRedOnceUntilFilledIn PROPERTIES LABELS "fixture;cli")
