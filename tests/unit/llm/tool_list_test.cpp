// ToolList: a shared, copy-on-write list of tool specs.

#include <catch2/catch.hpp>

#include "reagent/llm/model_request.hpp"

using reagent::llm::ModelRequest;
using reagent::llm::ToolList;
using reagent::llm::ToolSpec;

namespace {

ToolSpec spec(std::string name) {
    return ToolSpec{std::move(name), "does things", {{"type", "object"}}};
}

}  // namespace

TEST_CASE("copies of a ToolList share one list of specs", "[llm][tools]") {
    const ToolList tools(std::vector<ToolSpec>{spec("a"), spec("b")});
    ModelRequest first;
    first.tools = tools;
    ModelRequest second = first;

    CHECK(second.tools.sameAs(tools));
    CHECK(&second.tools[0] == &tools[0]);  // the very same spec, not a copy
    CHECK(second.tools.size() == 2);
    CHECK(second.tools.back().name == "b");
}

TEST_CASE("push_back on a shared ToolList copies first, other copies do not change", "[llm][tools]") {
    ToolList original{spec("a")};
    ToolList copy = original;

    copy.push_back(spec("b"));

    REQUIRE(original.size() == 1);
    CHECK(original[0].name == "a");
    REQUIRE(copy.size() == 2);
    CHECK(copy[1].name == "b");
    CHECK_FALSE(copy.sameAs(original));
}

TEST_CASE("ToolList equality compares specs, sameAs compares identity", "[llm][tools]") {
    const ToolList a{spec("a"), spec("b")};
    const ToolList b{spec("a"), spec("b")};
    ToolList c{spec("a"), spec("b")};
    c.push_back(ToolSpec{"c", "", nullptr});

    CHECK(a == b);
    CHECK_FALSE(a.sameAs(b));
    CHECK_FALSE(a == c);
    CHECK(ToolList{} == ToolList(std::vector<ToolSpec>{}));
    CHECK_FALSE(ToolList{}.sameAs(ToolList{}));
    CHECK(ToolList{}.empty());
    CHECK(ToolList{}.begin() == ToolList{}.end());

    ToolList differentSchema{spec("a"), spec("b")};
    ToolList changed{spec("a")};
    changed.push_back(ToolSpec{"b", "does things", {{"type", "object"}, {"required", {"x"}}}});
    CHECK(differentSchema == a);
    CHECK_FALSE(changed == a);
}
