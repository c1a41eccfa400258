// The built-in tools' hook in a program that does not enable them (this test links reagent::tools only),
// and with a maker installed.

#include "reagent/tools/builtin_catalog.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

using reagent::tools::BuiltinSelection;
using reagent::tools::BuiltinTools;
using reagent::tools::ToolErrc;

TEST_CASE("without a maker the defaults are empty and naming a built-in tool is an error",
          "[tools][builtins]") {
    REQUIRE_FALSE(reagent::tools::builtinToolsAvailable());
    const auto defaults = reagent::tools::makeBuiltinTools(BuiltinSelection{});
    REQUIRE(defaults);
    CHECK(defaults->tools.empty());
    CHECK_FALSE(defaults->rollback);

    BuiltinSelection named;
    named.include = std::vector<std::string>{"file-read"};
    const auto refused = reagent::tools::makeBuiltinTools(named);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == ToolErrc::invalid_definition);
    CHECK_THAT(refused.error().message, Catch::Contains("'file-read'") &&
                                            Catch::Contains("enableBuiltinTools") &&
                                            Catch::Contains("reagent/reagent.hpp"));

    BuiltinSelection workspace;
    workspace.workspace = "/tmp";
    CHECK_FALSE(reagent::tools::makeBuiltinTools(workspace));

    SECTION("an installed maker receives the selection") {
        std::vector<std::string> seen;
        reagent::tools::setBuiltinToolsMaker([&seen](const BuiltinSelection& selection) {
            seen = selection.include.value_or(std::vector<std::string>{"(defaults)"});
            return reagent::expected<BuiltinTools, reagent::tools::ToolError>(BuiltinTools{});
        });
        CHECK(reagent::tools::builtinToolsAvailable());
        REQUIRE(reagent::tools::makeBuiltinTools(named));
        CHECK(seen == std::vector<std::string>{"file-read"});
        reagent::tools::setBuiltinToolsMaker(nullptr);
        CHECK_FALSE(reagent::tools::builtinToolsAvailable());
    }
}
