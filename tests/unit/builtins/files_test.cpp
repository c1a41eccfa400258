// Reading, editing and writing files of a local workspace on real files.

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <catch2/catch.hpp>

#include "workspace_fixture.hpp"

using namespace reagent::builtins;
using namespace reagent::builtins::test;

TEST_CASE("builtins files: read returns lines with ranges and numbers", "[builtins][files]") {
    WorkspaceFixture fx;
    fx.file("five.txt", "one\ntwo\nthree\nfour\nfive");  // no final newline: still five lines

    ReadFileRequest read;
    read.path = "five.txt";
    auto whole = fx.run(fx.workspace->readFile(read));
    REQUIRE(whole);
    CHECK(whole->content == "one\ntwo\nthree\nfour\nfive");
    CHECK(whole->totalLines == 5);
    CHECK(whole->lineCount == 5);
    CHECK(whole->firstLine == 1);
    CHECK(whole->sizeBytes == 23);

    read.lineOffset = 1;
    read.lineCount = 2;
    read.numberLines = true;
    auto part = fx.run(fx.workspace->readFile(read));
    REQUIRE(part);
    CHECK(part->content == "     2\ttwo\n     3\tthree\n");
    CHECK(part->firstLine == 2);
    CHECK(part->lineCount == 2);
    CHECK(part->totalLines == 5);

    read.lineOffset = 5;
    read.lineCount.reset();
    auto atEnd = fx.run(fx.workspace->readFile(read));
    REQUIRE(atEnd);
    CHECK(atEnd->content.empty());

    read.lineOffset = 9;
    auto past = fx.run(fx.workspace->readFile(read));
    REQUIRE_FALSE(past);
    CHECK(past.error().code == WorkspaceErrc::invalid_argument);
    CHECK(contains(past.error().message, "has 5 lines"));
}

TEST_CASE("builtins files: read caps the content and the file size", "[builtins][files]") {
    LocalWorkspaceConfig config;
    config.maxFileBytes = 4096;
    WorkspaceFixture fx(config);
    std::string lines;
    for (int i = 0; i < 100; ++i) {
        lines += "line " + std::to_string(i) + "\n";
    }
    fx.file("lines.txt", lines);

    ReadFileRequest read;
    read.path = "lines.txt";
    read.maxBytes = 100;
    auto capped = fx.run(fx.workspace->readFile(read));
    REQUIRE_FALSE(capped);
    CHECK(capped.error().code == WorkspaceErrc::too_large);
    CHECK(contains(capped.error().message, "'lines.txt'"));
    CHECK(contains(capped.error().message, "lineOffset and lineCount"));
    CHECK(contains(capped.error().message, "100 lines"));

    read.lineOffset = 10;
    read.lineCount = 3;
    auto range = fx.run(fx.workspace->readFile(read));
    REQUIRE(range);
    CHECK(range->content == "line 10\nline 11\nline 12\n");

    fx.file("big.txt", std::string(5000, 'x'));
    read.path = "big.txt";
    auto big = fx.run(fx.workspace->readFile(read));
    REQUIRE_FALSE(big);
    CHECK(big.error().code == WorkspaceErrc::too_large);
    CHECK(contains(big.error().message, "5000 bytes"));
}

TEST_CASE("builtins files: binary files, directories, special and missing files are refused",
          "[builtins][files]") {
    WorkspaceFixture fx;
    fx.file("image.bin", std::string("PNG\0\x01\x02", 6));
    fx.file("dir/inner.txt", "x");
    REQUIRE(::mkfifo((fx.root / "pipe").c_str(), 0600) == 0);

    ReadFileRequest read;
    read.path = "image.bin";
    auto binary = fx.run(fx.workspace->readFile(read));
    REQUIRE_FALSE(binary);
    CHECK(binary.error().code == WorkspaceErrc::binary_file);
    CHECK(contains(binary.error().message, "'image.bin'"));

    EditFileRequest edit;
    edit.path = "image.bin";
    edit.search = "PNG";
    CHECK(fx.run(fx.workspace->editFile(edit)).error().code == WorkspaceErrc::binary_file);

    read.path = "dir";
    CHECK(fx.run(fx.workspace->readFile(read)).error().code == WorkspaceErrc::not_a_file);
    read.path = ".";
    CHECK(fx.run(fx.workspace->readFile(read)).error().code == WorkspaceErrc::not_a_file);
    read.path = "pipe";  // must not block
    CHECK(fx.run(fx.workspace->readFile(read)).error().code == WorkspaceErrc::not_a_file);
    read.path = "missing.txt";
    auto missing = fx.run(fx.workspace->readFile(read));
    REQUIRE_FALSE(missing);
    CHECK(missing.error().code == WorkspaceErrc::not_found);
    CHECK(contains(missing.error().message, "'missing.txt'"));
    read.path = "";
    CHECK(fx.run(fx.workspace->readFile(read)).error().code == WorkspaceErrc::invalid_argument);
}

TEST_CASE("builtins files: edit requires exactly one match", "[builtins][files]") {
    WorkspaceFixture fx;
    fx.file("code.txt", "alpha\nbeta\nalpha\n");

    EditFileRequest edit;
    edit.path = "code.txt";
    edit.search = "gamma";
    edit.replace = "x";
    auto none = fx.run(fx.workspace->editFile(edit));
    REQUIRE_FALSE(none);
    CHECK(none.error().code == WorkspaceErrc::match_count);
    CHECK(contains(none.error().message, "0 matches"));
    CHECK(contains(none.error().message, "'code.txt'"));

    edit.search = "alpha";
    auto two = fx.run(fx.workspace->editFile(edit));
    REQUIRE_FALSE(two);
    CHECK(two.error().code == WorkspaceErrc::match_count);
    CHECK(contains(two.error().message, "matches 2 times"));
    CHECK(WorkspaceFixture::readFile(fx.root / "code.txt") == "alpha\nbeta\nalpha\n");

    edit.search = "beta\n";
    edit.replace = "BETA\nextra\n";
    auto one = fx.run(fx.workspace->editFile(edit));
    REQUIRE(one);
    CHECK(one->replacements == 1);
    CHECK(one->originalContent == "alpha\nbeta\nalpha\n");
    CHECK(one->newContent == "alpha\nBETA\nextra\nalpha\n");
    CHECK(WorkspaceFixture::readFile(fx.root / "code.txt") == "alpha\nBETA\nextra\nalpha\n");

    edit.search = "alpha";
    edit.replace = "omega";
    edit.replaceAll = true;
    auto all = fx.run(fx.workspace->editFile(edit));
    REQUIRE(all);
    CHECK(all->replacements == 2);
    CHECK(WorkspaceFixture::readFile(fx.root / "code.txt") == "omega\nBETA\nextra\nomega\n");

    edit.search = "";
    CHECK(fx.run(fx.workspace->editFile(edit)).error().code == WorkspaceErrc::invalid_argument);
}

namespace {

// The most memory this process has held so far, in bytes.
std::size_t peakResidentBytes() {
    struct rusage usage {};
    ::getrusage(RUSAGE_SELF, &usage);
    return static_cast<std::size_t>(usage.ru_maxrss) * 1024;
}

}  // namespace

TEST_CASE("builtins files: a replaceAll that would pass the file limit is refused before it is built",
          "[builtins][files]") {
    WorkspaceFixture fx;
    // 65,536 one-byte matches, each replaced by 4 KiB: 256 MiB, 16 times the limit.
    fx.file("many.txt", std::string(64 * 1024, 'a'));
    EditFileRequest edit;
    edit.path = "many.txt";
    edit.search = "a";
    edit.replace = std::string(4096, 'b');
    edit.replaceAll = true;
    const std::size_t before = peakResidentBytes();
    auto refused = fx.run(fx.workspace->editFile(edit));
    const std::size_t grown = peakResidentBytes() - before;
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == WorkspaceErrc::too_large);
    CHECK(contains(refused.error().message, "268435456 bytes"));
    CHECK(grown < 32U * 1024 * 1024);
    CHECK(WorkspaceFixture::readFile(fx.root / "many.txt") == std::string(64 * 1024, 'a'));

    // A result of exactly the limit is still written.
    LocalWorkspaceConfig small;
    small.maxFileBytes = 8;
    WorkspaceFixture tight(small);
    tight.file("four.txt", "abab");
    edit.path = "four.txt";
    edit.search = "a";
    edit.replace = "xxx";
    auto fits = tight.run(tight.workspace->editFile(edit));
    REQUIRE(fits);
    CHECK(fits->newContent == "xxxbxxxb");
    tight.file("four.txt", "abab");
    edit.replace = "xxxx";
    CHECK(tight.run(tight.workspace->editFile(edit)).error().code == WorkspaceErrc::too_large);
}

TEST_CASE("builtins files: edit keeps the file's mode", "[builtins][files]") {
    WorkspaceFixture fx;
    fx.file("run.sh", "echo old\n");
    fs::permissions(fx.root / "run.sh", fs::perms(0750));
    EditFileRequest edit;
    edit.path = "run.sh";
    edit.search = "old";
    edit.replace = "new";
    REQUIRE(fx.run(fx.workspace->editFile(edit)));
    CHECK((fs::status(fx.root / "run.sh").permissions() & fs::perms::all) == fs::perms(0750));
    // No temporary file is left beside it.
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& entry : fs::directory_iterator(fx.root)) {
        ++entries;
    }
    CHECK(entries == 1);
}

TEST_CASE("builtins files: write creates parents, honours overwrite and refuses directories",
          "[builtins][files]") {
    WorkspaceFixture fx;
    WriteFileRequest write;
    write.path = "deep/er/new.txt";
    write.content = "hello\n";
    auto created = fx.run(fx.workspace->writeFile(write));
    REQUIRE(created);
    CHECK(created->created);
    CHECK(created->bytesWritten == 6);
    CHECK(created->path == "deep/er/new.txt");
    CHECK(WorkspaceFixture::readFile(fx.root / "deep/er/new.txt") == "hello\n");

    write.content = "again\n";
    auto replaced = fx.run(fx.workspace->writeFile(write));
    REQUIRE(replaced);
    CHECK_FALSE(replaced->created);
    CHECK(WorkspaceFixture::readFile(fx.root / "deep/er/new.txt") == "again\n");

    write.overwrite = false;
    auto kept = fx.run(fx.workspace->writeFile(write));
    REQUIRE_FALSE(kept);
    CHECK(kept.error().code == WorkspaceErrc::already_exists);

    write.path = "other/missing/x.txt";
    write.overwrite = true;
    write.createDirectories = false;
    auto noParent = fx.run(fx.workspace->writeFile(write));
    REQUIRE_FALSE(noParent);
    CHECK(noParent.error().code == WorkspaceErrc::not_found);
    CHECK(contains(noParent.error().message, "createDirectories"));

    write.path = "deep";
    CHECK(fx.run(fx.workspace->writeFile(write)).error().code == WorkspaceErrc::not_a_file);

    fx.file("plain", "x");
    write.path = "plain/child.txt";
    write.createDirectories = true;
    CHECK(fx.run(fx.workspace->writeFile(write)).error().code == WorkspaceErrc::not_a_directory);
}

TEST_CASE("builtins files: a write replaces a hard link instead of writing through it", "[builtins][files]") {
    WorkspaceFixture fx;
    fs::create_hard_link(fx.outside / "secret.txt", fx.root / "linked.txt");
    WriteFileRequest write;
    write.path = "linked.txt";
    write.content = "replaced\n";
    REQUIRE(fx.run(fx.workspace->writeFile(write)));
    CHECK(WorkspaceFixture::readFile(fx.root / "linked.txt") == "replaced\n");
    CHECK(WorkspaceFixture::readFile(fx.outside / "secret.txt") == "top secret\n");
}

TEST_CASE("builtins files: a write larger than the file limit is refused", "[builtins][files]") {
    LocalWorkspaceConfig config;
    config.maxFileBytes = 10;
    WorkspaceFixture fx(config);
    WriteFileRequest write;
    write.path = "big.txt";
    write.content = std::string(11, 'x');
    auto refused = fx.run(fx.workspace->writeFile(write));
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == WorkspaceErrc::too_large);
    CHECK_FALSE(fs::exists(fx.root / "big.txt"));
}
