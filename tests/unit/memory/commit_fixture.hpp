#pragma once
// Test data shaped like GitHub's `GET /repos/{owner}/{repo}/commits` (the seed's github/list_commits).

#include <nlohmann/json.hpp>
#include <string>

namespace reagent::test {

/// One commit; `index` 0..2 carry the seed's example messages, the rest are numbered.
inline nlohmann::ordered_json commitItem(int index) {
    static const char* const kShas[] = {"e255a5d3c1f04b8e9a7d2c6b5f8e1a0d9c3b7f42",
                                        "59bae87a4e2d1c0b9f8e7d6c5b4a39281706f5e4",
                                        "efc816e0d9c8b7a6f5e4d3c2b1a0918273645546"};
    static const char* const kMessages[] = {"chore: update bun.lock", "feat(examples): unified runner",
                                            "fix(examples): maxIterations"};
    std::string sha = index < 3 ? kShas[index] : "0c0ffee" + std::to_string(1000 + index);
    sha.resize(40, '0');
    const std::string message = index < 3 ? kMessages[index] : "refactor: step " + std::to_string(index);
    const std::string api = "https://api.github.com/repos/acme/reagent";
    const nlohmann::ordered_json person = {{"name", "Jane Doe"},
                                           {"email", "jane@example.com"},
                                           {"date", "2026-02-27T10:" + std::to_string(10 + index) + ":00Z"}};
    const nlohmann::ordered_json user = {{"login", "janedoe"},
                                         {"id", 4242},
                                         {"avatar_url", "https://avatars.githubusercontent.com/u/4242?v=4"},
                                         {"html_url", "https://github.com/janedoe"},
                                         {"type", "User"},
                                         {"site_admin", false}};
    return {{"sha", sha},
            {"node_id", "C_kwDOLkZ0CtoAKGUyNTVhNWQ" + std::to_string(index)},
            {"commit",
             {{"author", person},
              {"committer", person},
              {"message", message},
              {"tree", {{"sha", std::string(40, 'b')}, {"url", api + "/git/trees/" + std::string(40, 'b')}}},
              {"url", api + "/git/commits/" + sha},
              {"comment_count", 0}}},
            {"url", api + "/commits/" + sha},
            {"html_url", "https://github.com/acme/reagent/commit/" + sha},
            {"author", user},
            {"parents", nlohmann::ordered_json::array({{{"sha", std::string(40, 'c')}}})}};
}

/// `count` commits as one JSON array (30 commits are about 30 KB).
inline std::string commitsJson(int count = 30) {
    nlohmann::ordered_json commits = nlohmann::ordered_json::array();
    for (int i = 0; i < count; ++i) {
        commits.push_back(commitItem(i));
    }
    return commits.dump();
}

}  // namespace reagent::test
