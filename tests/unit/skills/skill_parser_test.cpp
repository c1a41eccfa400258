// `parseSkill`: the front matter fields of the Agent Skills specification, in the YAML they are written in,
// and clear errors naming the file and the line for what breaks the format.

#include <catch2/catch.hpp>
#include <reagent/reagent.hpp>

namespace skills = reagent::skills;

TEST_CASE("skills: a SKILL.md's front matter and body", "[skills]") {
    const std::string text =
        "---\n"
        "name: pdf-processing\n"
        "description: >\n"
        "  Extracts text from PDF files.\n"
        "  Use when the user mentions PDFs.\n"
        "license: 'Apache-2.0'\n"
        "compatibility: \"Needs pdftotext\"  # a comment\n"
        "metadata:\n"
        "  author: example-org\n"
        "  version: \"1.0\"\n"
        "allowed-tools:\n"
        "  - Bash(pdftotext:*)\n"
        "  - Read\n"
        "x-host-field: kept out\n"
        "---\n"
        "\n"
        "# PDF processing\n\nRun `scripts/extract.sh FILE`.\n";
    const auto parsed = skills::parseSkill(text, "pdf-processing/SKILL.md");
    REQUIRE(parsed);
    CHECK(parsed->info.name == "pdf-processing");
    CHECK(parsed->info.description == "Extracts text from PDF files. Use when the user mentions PDFs.");
    CHECK(parsed->info.license == "Apache-2.0");
    CHECK(parsed->info.compatibility == "Needs pdftotext");
    CHECK(parsed->info.metadata ==
          std::map<std::string, std::string>{{"author", "example-org"}, {"version", "1.0"}});
    CHECK(parsed->info.allowedTools == std::vector<std::string>{"Bash(pdftotext:*)", "Read"});
    CHECK(parsed->body == "# PDF processing\n\nRun `scripts/extract.sh FILE`.\n");

    const auto words =
        skills::parseSkill("---\nname: a\ndescription: d\nallowed-tools: Read  Grep\n---\n", "f");
    REQUIRE(words);
    CHECK(words->info.allowedTools == std::vector<std::string>{"Read", "Grep"});
    CHECK(words->body.empty());
    const auto literal = skills::parseSkill(
        "\xEF\xBB\xBF---\r\nname: a\r\ndescription: |\r\n  one\r\n  two\r\n---\r\nbody\r\n", "f");
    REQUIRE(literal);
    CHECK(literal->info.description == "one\ntwo");
}

TEST_CASE("skills: a SKILL.md that breaks the format is refused, naming the file and the line", "[skills]") {
    const auto refused = [](const std::string& text) {
        const auto parsed = skills::parseSkill(text, "my-skill/SKILL.md");
        REQUIRE_FALSE(parsed);
        CHECK(parsed.error().code == skills::SkillErrc::invalid_skill);
        CHECK(parsed.error().message.rfind("my-skill/SKILL.md", 0) == 0);
        return parsed.error().message;
    };
    CHECK_THAT(refused("# Just markdown\n"), Catch::Contains(":1: a SKILL.md begins with YAML front matter"));
    CHECK_THAT(refused("---\nname: a\ndescription: d\n"), Catch::Contains("not closed"));
    CHECK_THAT(refused("---\ndescription: d\n---\n"), Catch::Contains("no 'name'"));
    CHECK_THAT(refused("---\nname: a\n---\n"), Catch::Contains("no 'description'"));
    CHECK_THAT(refused("---\nname: PDF-Tools\ndescription: d\n---\n"), Catch::Contains("lowercase letters"));
    CHECK_THAT(refused("---\nname: pdf--tools\ndescription: d\n---\n"), Catch::Contains("single hyphens"));
    CHECK_THAT(refused("---\nname: -pdf\ndescription: d\n---\n"), Catch::Contains("not first or last"));
    CHECK_THAT(refused("---\nname: " + std::string(65, 'a') + "\ndescription: d\n---\n"),
               Catch::Contains("longer than 64"));
    CHECK_THAT(refused("---\nname: a\ndescription: " + std::string(1025, 'd') + "\n---\n"),
               Catch::Contains("at most 1024"));
    CHECK_THAT(refused("---\nname: a\ndescription: [a, b]\n---\n"),
               Catch::Contains(":3: YAML flow collections"));
    CHECK_THAT(refused("---\nname: a\ndescription: \"open\n---\n"),
               Catch::Contains(":3: a double-quoted value"));
    CHECK_THAT(refused("---\nname: a\n  indented: x\ndescription: d\n---\n"),
               Catch::Contains(":3: an indented line"));
    CHECK_THAT(refused("---\nname: a\ndescription: d\nmetadata: flat\n---\n"),
               Catch::Contains(":4: metadata must be a map"));
    CHECK_THAT(refused("---\nname: a\ndescription: d\njust words\n---\n"),
               Catch::Contains(":4: a line that is not 'key: value'"));
}
