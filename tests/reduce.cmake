# `tidemark reduce`: three reds cut down and written as fixtures, each the very file committed
# under testdata/reduce/expected (the same input gives the same fixture, judged one candidate
# at a time or two), proven by red-once in every lane (the command's own last step, its rows
# one per lane; then `tidemark red-once` against the ledger it wrote), and linted beside the
# whole scenario tree.
if(TIDEMARK_MUTANTS)
  set(reduce_data ${testdata}/reduce)
  set(reduce_check "set -e; rm -rf $0/$3; $1 reduce $4 --check \"$5\" --mutant $6 --name $3 --out $0/$3 --jobs $7; \
diff -u $2/expected/$3.yaml $0/$3/$3.yaml; test $(grep -c '' $0/$3/ledger.txt) -ge 4; \
for lane in monolith split spawn tcp; do grep -q \"| $lane |\" $0/$3/ledger.txt; done; \
$1 red-once $0/$3 --ledger $0/$3/ledger.txt --report $0/$3-red-once; \
cd $8 && $1 lint scenarios fixtures captures $0/$3 --expectations expectations.txt")
  foreach(case
      "TheP7-43StepsBuriedInTenThousandCallsComeBackAsTheFixture|a-draw-after-the-early-reclaim-follows-the-new-store-even-in-noise|${reduce_data}/p7-43-buried-in-noise.yaml|pixels[0]|memo.no_destroy_epoch|2"
      "AReclaimRedUnderTheFrameBucketReducesToOneLoop|parked-bytes-pass-the-budget-when-stores-wait-for-the-frame|${PROJECT_SOURCE_DIR}/scenarios/magma-reclaim/respecify-and-draw-each-store-stays-within-the-deferred-budget.yaml|wdefpk <= 8MiB + 1MiB|reclaim.frame_bucket|1"
      "AKmdSceneReducesUnderItsMutant|two-submits-recycled-at-submit-are-read-after-free|${PROJECT_SOURCE_DIR}/scenarios/kmd/a-command-buffer-recycled-before-its-fence-is-read-after-free.yaml|kuaf == 0|kmd.recycle_on_submit|2")
    string(REPLACE "|" ";" fields "${case}")
    list(GET fields 0 test)
    list(GET fields 1 name)
    list(GET fields 2 input)
    list(GET fields 3 check)
    list(GET fields 4 mutant)
    list(GET fields 5 jobs)
    add_test(NAME Tidemark.Reduce.${test}
             COMMAND bash -c "${reduce_check}" ${PROJECT_BINARY_DIR}/reduce $<TARGET_FILE:tidemark> ${reduce_data}
                     ${name} ${input} ${check} ${mutant} ${jobs} ${PROJECT_SOURCE_DIR})
    # The short one also runs under the sanitizers (judged on two threads); the others only
    # repeat its code paths on longer inputs.
    set(labels "reduce;cli")
    if(jobs EQUAL 2 AND test MATCHES "Kmd")
      set(labels "cli")
    endif()
    set_tests_properties(Tidemark.Reduce.${test} PROPERTIES LABELS "${labels}")
  endforeach()
  # A recording is lifted back to its scenario's file, one step a call, and reduced the same way.
  set(lifted parked-bytes-pass-the-budget-when-recorded-stores-wait-for-the-frame)
  add_test(NAME Tidemark.Reduce.ARecordingLiftsToOneStepACallAndReduces
           COMMAND bash -c "set -e; rm -rf $0/${lifted} $0/lift.tdrec; \
$1 run $3 --record $0/lift.tdrec --report $0/lift-run; \
$1 reduce $0/lift.tdrec --scenario $3 --check 'wdefpk <= 8MiB + 1MiB' --mutant reclaim.frame_bucket --name ${lifted} \
--out $0/${lifted}; diff -u $2/expected/${lifted}.yaml $0/${lifted}/${lifted}.yaml; \
$1 red-once $0/${lifted} --ledger $0/${lifted}/ledger.txt --report $0/${lifted}-red-once; \
cd $4 && $1 lint scenarios fixtures captures $0/${lifted} --expectations expectations.txt"
                   ${PROJECT_BINARY_DIR}/reduce $<TARGET_FILE:tidemark> ${reduce_data} ${budget_scenario} ${PROJECT_SOURCE_DIR})
  set_tests_properties(Tidemark.Reduce.ARecordingLiftsToOneStepACallAndReduces PROPERTIES LABELS "reduce;cli")
  # What is not a red to reduce is refused, saying what was seen; so are a check the file does
  # not have and a bug that is not named.
  add_test(NAME Tidemark.Reduce.WhatIsNotARedToReduceIsRefused
           COMMAND bash -c "set -e; \
$2 2 'not a red to reduce: under the bug .kuaf == 0. stays green' $1 reduce $3 --check 'kuaf == 0' --mutant memo.no_destroy_epoch --out $0/none; \
$2 2 '--check: expected a check of this scenario \\(kuaf == 0, krecycled == 6, kkept == 2\\), found .nope.' $1 reduce $3 --check nope --mutant kmd.recycle_on_submit; \
$2 2 'expected the bug as --mutant or --knob, found neither' $1 reduce $3 --check 'kuaf == 0'; \
$1 run $3 --record $0/kmd.tdrec --report $0/kmd-run; \
$2 2 'kmd.tdrec: record #[0-9]+: kmd_submit: only buffer_data, buffer_sub_data, draw, fence, client_wait, flush, finish and present calls lift' \
$1 reduce $0/kmd.tdrec --scenario $3 --check 'kuaf == 0' --mutant kmd.recycle_on_submit --out $0/none; \
test ! -e $0/none"
                   ${PROJECT_BINARY_DIR}/reduce $<TARGET_FILE:tidemark> ${expect_exit}
                   ${PROJECT_SOURCE_DIR}/scenarios/kmd/a-command-buffer-recycled-before-its-fence-is-read-after-free.yaml)
  set_tests_properties(Tidemark.Reduce.WhatIsNotARedToReduceIsRefused PROPERTIES LABELS "reduce;cli")
endif()
