// bisect.json and bisect.html: what a bisect found, one type and one codec (JSON, strict on
// reading: report/json_fields.h), and its page in the report's style.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "bisect/candidates.h"
#include "core/error.h"

namespace tidemark::bisect {

// One candidate judged: what its runs gave.
struct TriedCandidate {
  size_t position = 0;                    // its place in the candidates, 0 the good end
  std::string judgement;                  // judgement_name(): good, bad, skip, nondeterministic
  std::string why;                        // a skip's reason, the red that made it bad, its digests
  std::string verdict;                    // the first run's verdict (report::verdict_name), "" when nothing ran
  std::vector<std::string> digests;       // every repeat's digest
  std::map<std::string, int64_t> gauges;  // the key gauges of its first run
  std::string report_dir;                 // its runs' report folders
  bool built_now = false;                 // a git candidate built for this bisect (false: cached, or a list's)
  double seconds = 0;                     // building and judging it
};

struct BisectDocument {
  std::string subject;    // the subject judged ("portable/NAME", a capture fixture's id)
  std::string column;     // the backend each candidate runs ("gl")
  std::string predicate;  // what is bad ("vkbufspk worse than 4107+5%", "any check red")
  int64_t repeat = 1;
  std::string source;      // "builds" or "git"
  std::string repository;  // git: the user's repository, the build command and the cache
  std::string build_command;
  std::string cache;
  std::vector<Candidate> candidates;    // oldest first
  std::vector<TriedCandidate> tried;    // in the order judged, the two ends first
  size_t last_good = 0, first_bad = 0;  // positions
  std::vector<size_t> undecided;        // skipped or nondeterministic between them
  size_t bound = 0;                     // judgement_bound(candidates)
  size_t judgements = 0;                // of candidates neither skipped nor nondeterministic
  size_t skips = 0;                     // skipped or nondeterministic
  // A capture fixture's subject: the reduce that cuts it to what is red on the first bad and
  // green on the last good (offered as a command line), and the fixture --reduce wrote ("": none).
  std::string reduce_offer;
  std::string reduced_fixture;
  double seconds = 0;
};

nlohmann::json to_json(const BisectDocument& document);
Result<BisectDocument> bisect_from_json(const nlohmann::json& json, const std::string& where);
Result<BisectDocument> read_bisect(const std::filesystem::path& file);
std::string bisect_html(const BisectDocument& document);
// <dir>/bisect.json and <dir>/bisect.html, written together.
Status write_bisect(const std::filesystem::path& dir, const BisectDocument& document);

}  // namespace tidemark::bisect
