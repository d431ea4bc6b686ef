#include "report/described.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tidemark::report {

enum class Colour { Red, Blue };

struct Leaf {
  std::string name;
  int64_t size = 0;
  bool operator==(const Leaf&) const = default;
};

struct Tree {
  std::string title;
  std::string note;  // written only when set
  Colour colour = Colour::Red;
  std::optional<int> signal;
  std::vector<std::string> tags;
  std::map<std::string, int64_t> counts;
  std::vector<Leaf> leaves;
  std::optional<Leaf> root;
  bool operator==(const Tree&) const = default;
};

template <>
struct JsonWord<Colour> {
  static std::string word(Colour colour) { return colour == Colour::Red ? "red" : "blue"; }
  static std::optional<Colour> from_word(std::string_view word) {
    if (word == "red") return Colour::Red;
    if (word == "blue") return Colour::Blue;
    return std::nullopt;
  }
  static constexpr std::string_view expected = "one of red, blue";
};
template <>
struct JsonDescription<Leaf> {
  static constexpr auto fields() { return std::tuple{always("name", &Leaf::name), always("size", &Leaf::size)}; }
};
template <>
struct JsonDescription<Tree> {
  static constexpr auto fields() {
    return std::tuple{always("title", &Tree::title),     when_set("note", &Tree::note), always("colour", &Tree::colour),
                      when_set("signal", &Tree::signal), always("tags", &Tree::tags),   always("counts", &Tree::counts),
                      always("leaves", &Tree::leaves),   when_set("root", &Tree::root)};
  }
};

// A document that nests differently from its struct: `totals` is an object of two of its fields,
// and its optional part's fields lie beside its own.
struct Flat {
  int64_t id = 0;
  int64_t low = 0, high = 0;
  std::optional<Leaf> part;
  bool operator==(const Flat&) const = default;
};
template <>
struct JsonDescription<Flat> {
  static constexpr auto fields() {
    return std::tuple{always("id", &Flat::id), group("totals", always("low", &Flat::low), always("high", &Flat::high)),
                      inlined(&Flat::part, "name")};
  }
};

namespace {

Tree full() {
  return {.title = "t",
          .note = "n",
          .colour = Colour::Blue,
          .signal = 11,
          .tags = {"a", "b"},
          .counts = {{"x", 1}},
          .leaves = {{"l1", 1}, {"l2", 2}},
          .root = Leaf{"r", 3}};
}

Result<Tree> read(const nlohmann::json& json) {
  JsonFields fields(json, "t.json");
  Tree tree;
  read_described(fields, tree);
  TIDEMARK_CHECK(fields.finish());
  return tree;
}

// Check that every kind of field (a word, an optional number, lists, a map, objects, an optional
// object) reads back as it was written.
TEST(Described, EveryKindOfFieldReadsBackAsWritten) {
  const Tree tree = full();
  auto back = read(described_json(tree));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, tree);
  EXPECT_EQ(described_json(tree)["colour"], "blue");
}

// Check that a field written only when set is left out when empty and reads back empty, while an
// always-written one is written even when empty.
TEST(Described, AnEmptyWhenSetFieldIsLeftOutAndAnAlwaysFieldIsNot) {
  const Tree empty{};
  const nlohmann::json json = described_json(empty);
  EXPECT_FALSE(json.contains("note"));
  EXPECT_FALSE(json.contains("signal"));
  EXPECT_FALSE(json.contains("root"));
  EXPECT_EQ(json["tags"], nlohmann::json::array());
  EXPECT_EQ(json["leaves"], nlohmann::json::array());
  auto back = read(json);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, empty);
}

// Check that what is wrong names the field's path: a word not in the list, a missing field, a
// mistyped one inside a list of objects, and a key the description lacks.
TEST(Described, AWrongFieldIsNamedByItsPath) {
  nlohmann::json word = described_json(full());
  word["colour"] = "green";
  EXPECT_EQ(read(word).error().message, "t.json: colour: expected one of red, blue, found \"green\"");
  nlohmann::json missing = described_json(full());
  missing.erase("title");
  EXPECT_EQ(read(missing).error().message, "t.json: expected 'title', found none");
  nlohmann::json mistyped = described_json(full());
  mistyped["leaves"][1]["size"] = "big";
  EXPECT_EQ(
      read(mistyped).error().message,
      "t.json: leaves[1].size: expected an integer from -9223372036854775808 to 9223372036854775807, found \"big\"");
  nlohmann::json extra = described_json(full());
  extra["colour_v2"] = "red";
  EXPECT_NE(read(extra).error().message.find("colour_v2"), std::string::npos);
}

// Check that a group is an object of its own and an inlined part lies beside its owner's fields,
// read back only where its marker is: both read back as written, set or not.
TEST(Described, AGroupNestsAndAnInlinedPartLiesBesideItsOwner) {
  const Flat with{.id = 1, .low = 2, .high = 3, .part = Leaf{"p", 4}};
  const nlohmann::json json = described_json(with);
  EXPECT_EQ(json, nlohmann::json::parse(R"({"id": 1, "totals": {"low": 2, "high": 3}, "name": "p", "size": 4})"));
  for (const Flat& flat : {with, Flat{.id = 5, .low = 6, .high = 7, .part = std::nullopt}}) {
    const nlohmann::json written = described_json(flat);  // JsonFields reads it where it lies
    JsonFields fields(written, "f.json");
    Flat back;
    read_described(fields, back);
    ASSERT_TRUE(fields.finish()) << fields.finish().error().message;
    EXPECT_EQ(back, flat);
  }
  EXPECT_FALSE(described_json(Flat{}).contains("name"));
}

}  // namespace
}  // namespace tidemark::report
