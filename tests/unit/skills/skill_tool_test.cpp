// Skills folders loaded (`loadSkills`), offered through the `skill` tool (instructions and files when asked,
// nothing outside the skill's folder), and an agent built with them (`withSkills`).

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <reagent/reagent.hpp>

#include "run_coro.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
namespace skills = reagent::skills;
using nlohmann::json;
using reagent::llm::ScriptedProvider;
using reagent::llm::ScriptedTurn;
using reagent::test::runCoro;
using reagent::test::TempDir;

namespace {

void write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
}

// A skill `name` in `root`, with a script and a reference.
void writeSkill(const fs::path& root, const std::string& name, const std::string& description) {
    write(root / name / "SKILL.md", "---\nname: " + name + "\ndescription: " + description + "\n---\n# " +
                                        name +
                                        "\n\nRead references/GUIDE.md, then run "
                                        "scripts/check.sh.\n");
    write(root / name / "references" / "GUIDE.md", "The guide of " + name + ".\n");
    write(root / name / "scripts" / "check.sh", "#!/bin/sh\necho checked\n");
}

reagent::tools::ToolResult call(const reagent::tools::Tool& tool, json args) {
    return runCoro(tool.handler(std::move(args), reagent::tools::ToolContext{}));
}

}  // namespace

TEST_CASE("skills: folders of skills are loaded in name order, each checked", "[skills]") {
    const TempDir dir;
    writeSkill(dir.path / "library", "release-notes", "Writes release notes from a changelog.");
    writeSkill(dir.path / "library", "code-review", "Reviews a diff for bugs.");
    fs::create_directories(dir.path / "library" / "not-a-skill");
    writeSkill(dir.path, "solo", "A skill given by its own folder.");
    auto loaded = skills::loadSkills({dir.path / "library", dir.path / "solo"});
    REQUIRE(loaded);
    REQUIRE(loaded->size() == 3);
    CHECK((*loaded)[0].info.name == "code-review");
    CHECK((*loaded)[1].info.name == "release-notes");
    CHECK((*loaded)[2].info.name == "solo");
    CHECK((*loaded)[2].directory.is_absolute());

    SECTION("two skills with one name") {
        writeSkill(dir.path / "other", "code-review", "Another.");
        auto refused = skills::loadSkills({dir.path / "library", dir.path / "other"});
        REQUIRE_FALSE(refused);
        CHECK(refused.error().code == skills::SkillErrc::duplicate_skill);
        CHECK_THAT(refused.error().message, Catch::Contains("library/code-review/SKILL.md") &&
                                                Catch::Contains("other/code-review/SKILL.md"));
    }
    SECTION("a name that is not its folder's") {
        write(dir.path / "odd" / "folder" / "SKILL.md", "---\nname: other\ndescription: d\n---\n");
        auto refused = skills::loadSkills({dir.path / "odd"});
        REQUIRE_FALSE(refused);
        CHECK_THAT(refused.error().message,
                   Catch::Contains("folder/SKILL.md") && Catch::Contains("not its folder's"));
    }
    SECTION("a SKILL.md too large, or not text") {
        write(dir.path / "big" / "huge" / "SKILL.md",
              "---\nname: huge\ndescription: d\n---\n" + std::string(5000, 'x'));
        skills::SkillLimits limits;
        limits.maxSkillBytes = 4096;
        auto large = skills::loadSkills({dir.path / "big"}, limits);
        REQUIRE_FALSE(large);
        CHECK(large.error().code == skills::SkillErrc::too_large);
        CHECK_THAT(large.error().message, Catch::Contains("huge/SKILL.md") && Catch::Contains("4096"));
        write(dir.path / "bin" / "blob" / "SKILL.md", std::string("---\nname: blob\0\x01\x02", 17));
        auto binary = skills::loadSkills({dir.path / "bin"});
        REQUIRE_FALSE(binary);
        CHECK(binary.error().code == skills::SkillErrc::unreadable);
        CHECK_THAT(binary.error().message, Catch::Contains("blob/SKILL.md") && Catch::Contains("not text"));
    }
    SECTION("a folder that does not exist") {
        auto missing = skills::loadSkills({dir.path / "nowhere"});
        REQUIRE_FALSE(missing);
        CHECK(missing.error().code == skills::SkillErrc::not_found);
    }
}

TEST_CASE("skills: the skill tool gives instructions and files, and nothing outside the skill", "[skills]") {
    const TempDir dir;
    writeSkill(dir.path / "library", "release-notes", "Writes release notes from a changelog.");
    write(dir.path / "secret.txt", "not for the model");
    fs::create_symlink(dir.path / "secret.txt", dir.path / "library" / "release-notes" / "escape.txt");
    write(dir.path / "library" / "release-notes" / "assets" / "big.txt", std::string(3000, 'b'));
    auto loaded = skills::loadSkills({dir.path / "library"});
    REQUIRE(loaded);
    skills::SkillLimits limits;
    limits.maxFileBytes = 2048;
    auto tool = skills::skillTool(*loaded, limits);
    REQUIRE(tool);
    CHECK(tool->definition.name == "skill");
    CHECK_THAT(tool->definition.description,
               Catch::Contains("- release-notes: Writes release notes from a changelog."));

    const auto activated = call(*tool, json{{"name", "release-notes"}});
    REQUIRE(activated);
    CHECK_THAT(*activated, Catch::Contains("# release-notes\n\nRead references/GUIDE.md"));
    CHECK_THAT(*activated,
               Catch::Contains("- references/GUIDE.md\n") && Catch::Contains("- scripts/check.sh\n"));
    CHECK_THAT(*activated, Catch::Contains("Folder: " + (dir.path / "library" / "release-notes").string()));
    CHECK(activated->find("name: release-notes") == std::string::npos);  // the front matter is not repeated

    const auto guide = call(*tool, json{{"name", "release-notes"}, {"file", "references/GUIDE.md"}});
    REQUIRE(guide);
    CHECK(*guide == "The guide of release-notes.\n");

    const auto refusal = [&](const std::string& file) {
        const auto refused = call(*tool, json{{"name", "release-notes"}, {"file", file}});
        REQUIRE_FALSE(refused);
        return refused.error().message;
    };
    CHECK_THAT(refusal("../../secret.txt"), Catch::Contains("leaves the skill's folder"));
    CHECK_THAT(refusal((dir.path / "secret.txt").string()),
               Catch::Contains("relative to the skill's folder"));
    CHECK_THAT(refusal("escape.txt"), Catch::Contains("link to a file outside"));
    CHECK_THAT(refusal("missing.md"), Catch::Contains("no file 'missing.md'"));
    CHECK_THAT(refusal("assets/big.txt"), Catch::Contains("3000 bytes") && Catch::Contains("2048"));
    const auto unknown = call(*tool, json{{"name", "nope"}});
    REQUIRE_FALSE(unknown);
    CHECK_THAT(unknown.error().message, Catch::Contains("the skills are: release-notes"));
}

TEST_CASE("skills: an agent offers its skills, and a bad one fails its build naming the file", "[skills]") {
    const TempDir dir;
    writeSkill(dir.path / "library", "release-notes", "Writes release notes from a changelog.");
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("skill", json{{"name", "release-notes"}}))
        .then(ScriptedTurn::text("Notes written."));
    auto agent = reagent::Agent::create().withProvider(provider).withSkills({dir.path / "library"}).build();
    REQUIRE(agent);
    const auto result = runCoro(agent->run("Write the release notes"));
    REQUIRE(result.success());
    const auto& first = provider->requests().at(0);
    const auto offered = std::find_if(first.tools.begin(), first.tools.end(),
                                      [](const auto& tool) { return tool.name == "skill"; });
    REQUIRE(offered != first.tools.end());
    CHECK_THAT(offered->description, Catch::Contains("release-notes: Writes release notes"));
    CHECK_THAT(provider->requests().at(1).messages.back().text, Catch::Contains("Read references/GUIDE.md"));

    write(dir.path / "broken" / "bad" / "SKILL.md", "---\nname: bad\n---\n");
    auto broken = reagent::Agent::create().withProvider(provider).withSkills({dir.path / "broken"}).build();
    REQUIRE_FALSE(broken);
    CHECK_THAT(broken.error().describe(),
               Catch::Contains("bad/SKILL.md") && Catch::Contains("no 'description'"));
}
