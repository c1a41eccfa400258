#include "reagent/core/boxed.hpp"

#include <catch2/catch.hpp>
#include <optional>
#include <string>

using reagent::Boxed;

namespace {

struct Answer {
    std::string text;
    int score = 0;
};

}  // namespace

TEST_CASE("a box is used as an optional: empty, set, read, reset") {
    Boxed<Answer> box;
    CHECK_FALSE(box);
    CHECK_FALSE(box.has_value());
    CHECK(box == std::nullopt);
    CHECK_THROWS_AS(box.value(), std::bad_optional_access);

    box = Answer{"yes", 3};
    REQUIRE(box);
    CHECK(box->text == "yes");
    CHECK((*box).score == 3);
    CHECK(box.value().text == "yes");
    box->score = 4;
    CHECK(box->score == 4);

    box.reset();
    CHECK_FALSE(box);
    box.emplace(Answer{"again", 1});
    CHECK(box->text == "again");
    box = std::nullopt;
    CHECK_FALSE(box);
}

TEST_CASE("a box copies deeply and is empty once moved from") {
    Boxed<Answer> first = Answer{"one", 1};
    Boxed<Answer> copy = first;
    copy->text = "changed";
    CHECK(first->text == "one");

    Boxed<Answer> assigned;
    assigned = first;
    CHECK(assigned->text == "one");
    const Boxed<Answer>& same = assigned;
    assigned = same;  // self-assignment keeps the value
    CHECK(assigned->text == "one");
    assigned = Boxed<Answer>{};
    CHECK_FALSE(assigned);

    Boxed<Answer> moved = std::move(first);
    CHECK(moved->text == "one");
    CHECK_FALSE(first);  // NOLINT(bugprone-use-after-move): a moved-from box is empty, as documented
}

TEST_CASE("a box converts to and from std::optional") {
    const std::optional<Answer> none;
    const Boxed<Answer> fromNone = none;
    CHECK_FALSE(fromNone);

    const Boxed<Answer> fromSome = std::optional<Answer>(Answer{"some", 2});
    REQUIRE(fromSome);
    CHECK(fromSome->score == 2);

    const std::optional<Answer> back = fromSome;
    REQUIRE(back);
    CHECK(back->text == "some");
    const std::optional<Answer> empty = fromNone;
    CHECK_FALSE(empty);

    std::optional<Answer> assigned = Answer{"old", 0};
    assigned = fromNone;
    CHECK_FALSE(assigned);
}

TEST_CASE("a box holds one pointer, whatever it boxes") {
    STATIC_REQUIRE(sizeof(Boxed<Answer>) == sizeof(void*));
}
