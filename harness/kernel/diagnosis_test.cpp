// The diagnosis table: every row is reached by a named input, the order decides where rows
// overlap, and the table decides as the if-chain it replaced did, on a grid of observations
// and on the model's own runs.
#include "kernel/diagnosis.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

namespace tidemark::kernel::diagnosis {
namespace {

constexpr uint64_t kUs = 1'000;
constexpr uint64_t kMs = 1'000'000;

Command draw(uint64_t cost_ns = kUs) { return {CommandKind::Draw, cost_ns, 0}; }

// A late fence (0 < 1) on an awake engine watched for 1 ms; the rest as each input sets it.
Observation late() {
  Observation o;
  o.registers = {.head = 2, .tail = 10, .fence = 0, .awaited = 1, .at_head = "draw", .engine = "awake"};
  o.head_before = 2;
  o.probe_ns = kMs;
  o.tiny_submits = 1'000;
  return o;
}
Observation on_time() {
  Observation o = late();
  o.registers.fence = 1;
  return o;
}
Observation with(Observation o, const std::function<void(Observation&)>& set) {
  set(o);
  return o;
}

struct Named {
  std::string_view input;
  Observation observed;
  std::string_view row;  // the row that should decide
};

std::vector<Named> one_input_per_row() {
  return {
      {"a stale read", with(late(), [](auto& o) { o.stale_reads = 1; }), "half_written"},
      {"2000 tiny submits, busy 18%", with(on_time(), [](auto& o) { o.frame_submits = 2'000, o.busy_percent = 18; }),
       "cpu_bound/tiny_submits"},
      {"a full ring once", with(on_time(), [](auto& o) { o.frame_ring_waits = 1; }), "cpu_bound/ring_full"},
      {"the fence reached", on_time(), "healthy"},
      {"a late fence to an observer of the fence alone", with(late(), [](auto& o) { o.fence_only = true; }),
       "stuck_command/fence_only"},
      {"the head moving on a late fence", with(late(), [](auto& o) { o.registers.head_moved = true; }),
       "heavy_work/head_moved"},
      {"a drained ring on a late fence", with(late(), [](auto& o) { o.ring_empty = true; }), "fence_unwritable"},
      {"a long draw running", with(late(), [](auto& o) { o.announced = o.command_started = true; }),
       "heavy_work/running"},
      {"an unsignalled semaphore",
       with(late(), [](auto& o) { o.announced = true, o.at_kind = CommandKind::SemaphoreWait; }),
       "stuck_command/semaphore_wait"},
      {"a bad address", with(late(), [](auto& o) { o.announced = true, o.at_kind = CommandKind::BadAddress; }),
       "stuck_command/bad_address"},
      {"a bad opcode", with(late(), [](auto& o) { o.announced = true, o.at_kind = CommandKind::BadOpcode; }),
       "stuck_command/bad_opcode"},
      // Defensive: the model starts an announced draw or fence write at once, so only a
      // hand-built observation reaches this row.
      {"an announced fence write not started", with(late(), [](auto& o) { o.announced = true; }),
       "stuck_command/other"},
      {"an unannounced packet, race policy", with(late(), [](auto& o) { o.power = PowerPolicy::Race; }),
       "doorbell_lost/asleep"},
      {"an unannounced packet, wait policy", late(), "doorbell_lost/skipped"},
  };
}

std::vector<size_t> matching_rows(const Observation& o) {
  std::vector<size_t> rows;
  for (size_t row = 0; row < scenes().size(); ++row)
    if (scenes()[row].when(o)) rows.push_back(row);
  return rows;
}

// Check that row names are unique, the last row always holds, and every row is the first match
// of one named input.
TEST(KmdDiagnosisTable, EveryRowIsReachedByANamedInput) {
  std::set<std::string_view> names, reached;
  for (const Scene& row : scenes()) EXPECT_TRUE(names.insert(row.name).second) << row.name;
  EXPECT_TRUE(scenes().back().when(Observation{}));
  for (const auto& [input, observed, row] : one_input_per_row()) {
    EXPECT_EQ(scenes()[first_match(observed)].name, row) << input;
    reached.insert(scenes()[first_match(observed)].name);
  }
  EXPECT_EQ(reached, names);
}

// Check that where predicates overlap the earlier row decides, and that reversing the order
// would decide otherwise: the order is part of the table.
TEST(KmdDiagnosisTable, TheOrderDecidesWhereRowsOverlap) {
  const Named overlapping[] = {
      {"a magic catch among tiny submits",
       with(on_time(), [](auto& o) { o.magic_caught = 1, o.frame_submits = 2'000, o.busy_percent = 18; }),
       "half_written"},
      {"tiny submits that also found the ring full",
       with(on_time(), [](auto& o) { o.frame_submits = 2'000, o.busy_percent = 18, o.frame_ring_waits = 2; }),
       "cpu_bound/tiny_submits"},
      {"a full ring on time", with(on_time(), [](auto& o) { o.frame_ring_waits = 2; }), "cpu_bound/ring_full"},
      {"a moving head to an observer of the fence alone",
       with(late(), [](auto& o) { o.fence_only = true, o.registers.head_moved = true; }), "stuck_command/fence_only"},
      {"a head that moved and drained the ring",
       with(late(), [](auto& o) { o.registers.head_moved = true, o.ring_empty = true; }), "heavy_work/head_moved"},
      {"a semaphore wait already running",
       with(late(),
            [](auto& o) {
              o.announced = o.command_started = true;
              o.at_kind = CommandKind::SemaphoreWait;
            }),
       "heavy_work/running"},
      {"a stuck bad address, race policy",
       with(late(),
            [](auto& o) { o.announced = true, o.at_kind = CommandKind::BadAddress, o.power = PowerPolicy::Race; }),
       "stuck_command/bad_address"},
      {"a lost doorbell, off policy", with(late(), [](auto& o) { o.power = PowerPolicy::Off; }),
       "doorbell_lost/asleep"},
  };
  for (const auto& [input, observed, row] : overlapping) {
    std::vector<size_t> rows = matching_rows(observed);
    ASSERT_GE(rows.size(), 2u) << input;
    EXPECT_EQ(first_match(observed), rows.front()) << input;
    EXPECT_EQ(scenes()[rows.front()].name, row) << input;
    const Scene& last = scenes()[rows.back()];  // what the rows in reverse order would decide
    Diagnosis reversed = observed.registers;
    reversed.scene = last.scene, reversed.finding = last.finding(observed), reversed.remedy = last.remedy;
    EXPECT_NE(conclude(observed), reversed) << input << ": the order changes nothing";
  }
}

// The if-chain the table replaced, verbatim but for reading an Observation.
Diagnosis if_chain(const Observation& o) {
  Diagnosis d = o.registers;
  if (o.stale_reads > 0 || o.magic_caught > 0) {
    d.scene = "half_written";
    d.finding = o.last_finding;
    d.remedy = "check a header magic before the tail moves; keep the completeness barrier on the ring's wrap path";
    return d;
  }
  if (d.fence >= d.awaited) {
    if (o.frame_submits >= o.tiny_submits && o.busy_percent < 50) {
      d.scene = "cpu_bound";
      d.finding = fmt::format("{} submits in this frame; the engine was busy {}% of its {}", o.frame_submits,
                              o.busy_percent, us(o.frame_ns));
      d.remedy = "batch submits: fewer, larger command buffers";
    } else if (o.frame_ring_waits > 0) {
      d.scene = "cpu_bound";
      d.finding = fmt::format("the submitter found the ring full {} times in this frame", o.frame_ring_waits);
      d.remedy = "a larger ring or a deeper queue; batch submits";
    } else {
      d.scene = "healthy";
      d.finding = fmt::format("fence {} reached; the engine is {}", d.fence, d.engine);
      d.remedy = "none";
    }
    return d;
  }
  if (o.fence_only) {
    d.scene = "stuck_command";
    d.finding = fmt::format("the fence stays at {} < {}", d.fence, d.awaited);
    d.remedy = "decode the command at head";
    return d;
  }
  if (d.head_moved) {
    d.scene = "heavy_work";
    d.finding = fmt::format("head moved from {} to {} in {} while the fence is {} < {}", o.head_before, d.head,
                            us(o.probe_ns), d.fence, d.awaited);
    d.remedy = "heavy work or a barrier wait: check the other engines' fences and semaphores before calling it a hang";
  } else if (o.ring_empty) {
    d.scene = "fence_unwritable";
    d.finding = fmt::format("head {} is past the fence write of {} but the fence reads {}", d.head, d.awaited, d.fence);
    d.remedy = "check the fence page's GPU mapping and its write permission";
  } else if (o.announced && o.command_started) {
    d.scene = "heavy_work";
    d.finding = fmt::format("head {} stays on a {} that is still running after {}; the fence is {} < {}", d.head,
                            d.at_head, us(o.probe_ns), d.fence, d.awaited);
    d.remedy = "heavy work or a barrier wait: check the other engines' fences and semaphores before calling it a hang";
  } else if (o.announced) {
    d.scene = "stuck_command";
    d.finding =
        fmt::format("head {} has not moved in {}; the command at head is {}", d.head, us(o.probe_ns), d.at_head);
    d.remedy =
        !o.at_kind                                 ? "decode the command at head"
        : *o.at_kind == CommandKind::SemaphoreWait ? "find the engine that should signal that semaphore"
        : *o.at_kind == CommandKind::BadAddress ? "an address outside the process's GPU range: a missed address patch"
        : *o.at_kind == CommandKind::BadOpcode ? "an opcode the engine does not know: a stream written or patched wrong"
                                               : "decode the command at head";
  } else {
    d.scene = "doorbell_lost";
    d.finding = fmt::format("head {} has not moved in {}; the doorbell reads {} but the tail is {}; the engine is {}",
                            d.head, us(o.probe_ns), d.doorbell, d.tail, d.engine);
    d.remedy = o.power != PowerPolicy::Wait
                   ? "wake the engine before the first submit, and read the doorbell back after writing it"
                   : "read the doorbell back after writing it: it was skipped or merged";
  }
  return d;
}

// Check, over every combination of what the rows read (30 720 observations), that the table's
// scene, finding, remedy and registers are the if-chain's, byte for byte.
TEST(KmdDiagnosisTable, TheTableDecidesAsTheIfChainDid) {
  const std::optional<CommandKind> kinds[] = {std::nullopt, CommandKind::Draw, CommandKind::SemaphoreWait,
                                              CommandKind::BadAddress, CommandKind::BadOpcode};
  size_t compared = 0;
  for (unsigned bits = 0; bits < (1u << 11); ++bits) {
    auto bit = [&](int k) { return (bits >> k & 1) != 0; };
    for (const auto& kind : kinds)
      for (PowerPolicy power : {PowerPolicy::Wait, PowerPolicy::Race, PowerPolicy::Off}) {
        Observation o = bit(0) ? late() : on_time();
        o.stale_reads = bit(1);
        o.magic_caught = bit(2);
        o.frame_submits = bit(3) ? 1'000 : 999;
        o.busy_percent = bit(4) ? 50 : 49;
        o.frame_ring_waits = bit(5) ? 3 : 0;
        o.fence_only = bit(6);
        o.registers.head_moved = bit(7);
        o.ring_empty = bit(8);
        o.announced = bit(9);
        o.command_started = bit(10);
        o.at_kind = kind;
        o.power = power;
        o.last_finding = "the engine decoded ring offset 0";
        o.frame_ns = 11'000 * kUs;
        ASSERT_EQ(conclude(o), if_chain(o)) << "bits " << bits;
        ++compared;
      }
  }
  EXPECT_EQ(compared, 30'720u);
}

struct Run {
  std::string_view input;
  std::function<SubmissionModel()> drive;
  std::string_view row;  // the row that should decide
};

// The model's runs, one per row but the defensive stuck_command/other (fence_only needs its
// mutant compiled in).
std::vector<Run> model_runs() {
  auto run = [](KmdConfig config, auto&& steps, MutantId mutant = MutantId::None) {
    SubmissionModel model(config, mutant);
    steps(model);
    return model;
  };
  KmdConfig small, off, no_readback;
  small.ring_dwords = 64;
  off.power = PowerPolicy::Off;
  off.doorbell_readback = no_readback.doorbell_readback = false;
  return {
    {"a wrapped packet caught by the magic",
     [=] {
       return run(small, [](auto& m) {
         for (int i = 0; i < 6; ++i) m.submit({draw()});
         m.advance(kMs);
         m.arm({.half_written = true});
         m.submit({draw()});
       });
     },
     "half_written"},
        {"2000 tiny submits",
         [=] {
           return run({}, [](auto& m) {
             for (int i = 0; i < 2000; ++i) m.submit({draw()});
           });
         },
         "cpu_bound/tiny_submits"},
        {"a 32-dword ring of 100 us draws",
         [=] {
           KmdConfig c;
           c.ring_dwords = kMinRingDwords;
           return run(c, [](auto& m) {
             for (int i = 0; i < 4; ++i) m.submit({draw(100 * kUs)});
             m.wait(4, kMs);
           });
         },
         "cpu_bound/ring_full"},
        {"one draw waited for", [=] { return run({}, [](auto& m) { m.submit({draw()}), m.wait(1, kMs); }); },
         "healthy"},
#if TIDEMARK_MUTANTS
        {"ten 1 ms draws, fence-only observer",
         [=] {
           return run(
               {},
               [](auto& m) {
                 m.submit(std::vector<Command>(10, draw(kMs)));
                 m.advance(2'500 * kUs);
               },
               MutantId::KmdDiagnosisReadsFenceOnly);
         },
         "stuck_command/fence_only"},
#endif
        {"ten 1 ms draws",
         [=] {
           return run({}, [](auto& m) {
             m.submit(std::vector<Command>(10, draw(kMs)));
             m.advance(2'500 * kUs);
           });
         },
         "heavy_work/head_moved"},
        {"an unwritable fence",
         [=] {
           return run({}, [](auto& m) {
             m.arm({.fence_unwritable = true});
             m.submit({draw()});
             m.advance(100 * kUs);
           });
         },
         "fence_unwritable"},
        {"a 10 ms draw", [=] { return run({}, [](auto& m) { m.submit({draw(10 * kMs)}); }); }, "heavy_work/running"},
        {"semaphore_wait 3", [=] { return run({}, [](auto& m) {
                                     m.submit({{CommandKind::SemaphoreWait, kUs, 3}});
                                   }); },
         "stuck_command/semaphore_wait"},
        {"bad_address 0xdead000",
         [=] { return run({}, [](auto& m) {
                 m.submit({{CommandKind::BadAddress, kUs, 0xdead000}});
               }); },
         "stuck_command/bad_address"},
        {"bad_opcode 0x7f", [=] { return run({}, [](auto& m) {
                                    m.submit({{CommandKind::BadOpcode, kUs, 0x7f}});
                                  }); },
         "stuck_command/bad_opcode"},
        {"a draw to a sleeping engine, off policy",
         [=] {
           return run(off, [](auto& m) {
             m.advance(5 * kMs);
             m.submit({draw()});
           });
         },
         "doorbell_lost/asleep"},
        {"a doorbell not written",
         [=] {
           return run(no_readback, [](auto& m) {
             m.arm({.doorbell = DoorbellFault::NotWritten});
             m.submit({draw()});
           });
         },
         "doorbell_lost/skipped"},
  };
}

// Check on the model's own runs that diagnose() is conclude(observe()), and which row decides.
TEST(KmdDiagnosisTable, TheModelsRunsReachTheirRows) {
  for (const auto& [input, drive, row] : model_runs()) {
    SubmissionModel model = drive();
    SubmissionModel twin = model;
    Diagnosis diagnosed = model.diagnose();
    Observation observed = twin.observe();
    EXPECT_EQ(scenes()[first_match(observed)].name, row) << input;
    EXPECT_EQ(conclude(observed), diagnosed) << input;
    EXPECT_EQ(twin.now(), model.now()) << input;
  }
}

}  // namespace
}  // namespace tidemark::kernel::diagnosis
