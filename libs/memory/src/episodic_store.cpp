#include "reagent/memory/episodic_store.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <ctime>
#include <string_view>

#include "episodic_store_impl.hpp"
#include "utf8.hpp"

namespace reagent::memory {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;
using std::chrono::system_clock;

constexpr std::size_t kSnippetRadius = 40;
// Timestamps `record` can write: after the epoch (it writes "now" for the epoch) and up to 9999-12-31.
constexpr std::int64_t kLastValidMs = 253402300799999;

constexpr const char* kColumns = "id, action, tool, input, result, timestamp";

void bindText(sqlite3_stmt* stmt, int index, const std::string& text) {
    sqlite3_bind_text(stmt, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
}

Episode readEpisode(sqlite3_stmt* stmt) {
    Episode episode;
    episode.id = sqlite3_column_int64(stmt, 0);
    episode.action = columnText(stmt, 1);
    episode.tool = columnText(stmt, 2);
    episode.input = columnText(stmt, 3);
    episode.result = columnText(stmt, 4);
    const std::int64_t ms = sqlite3_column_int64(stmt, 5);
    if (sqlite3_column_type(stmt, 5) == SQLITE_INTEGER && ms > 0 && ms <= kLastValidMs) {
        episode.timestamp = system_clock::time_point(milliseconds(ms));
    } else if (sqlite3_column_type(stmt, 5) == SQLITE_INTEGER) {
        episode.invalidTimestamp = std::to_string(ms);
    } else {
        // Text, a real or a blob (NULL cannot be stored): shown as SQL would quote it.
        episode.invalidTimestamp = sqlite3_column_type(stmt, 5) == SQLITE_TEXT
                                       ? "'" + columnText(stmt, 5) + "'"
                                       : columnText(stmt, 5);
    }
    return episode;
}

// `keyword` with LIKE's wildcards and the escape character escaped, wrapped in `%`.
std::string likePattern(const std::string& keyword) {
    std::string pattern = "%";
    for (const char c : keyword) {
        if (c == '%' || c == '_' || c == '\\') {
            pattern += '\\';
        }
        pattern += c;
    }
    pattern += '%';
    return pattern;
}

// Position of `keyword` in `text`, ASCII case-insensitive (as SQLite's LIKE), or npos.
std::size_t findNoCase(std::string_view text, std::string_view keyword) {
    const auto it = std::search(text.begin(), text.end(), keyword.begin(), keyword.end(), [](char a, char b) {
        return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
    });
    return it == text.end() ? std::string_view::npos : static_cast<std::size_t>(it - text.begin());
}

std::string snippetFor(const Episode& episode, const std::string& keyword) {
    for (const std::string* field : {&episode.tool, &episode.input, &episode.result}) {
        if (const auto pos = findNoCase(*field, keyword); pos != std::string_view::npos) {
            return utf8::snippetAround(*field, pos, pos + keyword.size(), kSnippetRadius);
        }
    }
    return {};
}

}  // namespace

std::string formatTimestamp(std::chrono::system_clock::time_point when) {
    const auto ms = std::chrono::duration_cast<milliseconds>(when.time_since_epoch()).count();
    if (ms < 0 || ms > kLastValidMs) {
        return "invalid timestamp (" + std::to_string(ms) + ")";
    }
    const std::time_t seconds = system_clock::to_time_t(when);
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

std::string formatTimestamp(const Episode& episode) {
    if (episode.invalidTimestamp) {
        return "invalid timestamp (" + *episode.invalidTimestamp + ")";
    }
    return formatTimestamp(episode.timestamp);
}

EpisodicStore::EpisodicStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
EpisodicStore::EpisodicStore(EpisodicStore&&) noexcept = default;
EpisodicStore& EpisodicStore::operator=(EpisodicStore&&) noexcept = default;
EpisodicStore::~EpisodicStore() = default;

const std::string& EpisodicStore::path() const noexcept {
    return impl_->path;
}

expected<std::int64_t, MemoryError> EpisodicStore::record(const Episode& episode) {
    return record(episode, kBusyTimeout);
}

expected<std::int64_t, MemoryError> EpisodicStore::record(const Episode& episode, milliseconds lockWait) {
    const std::lock_guard lock(impl_->mutex);
    impl_->lockWait = std::max(lockWait, milliseconds(0));
    struct RestoreWait {
        Impl& impl;
        ~RestoreWait() { impl.lockWait = kBusyTimeout; }
    } restore{*impl_};
    Statement insert;
    if (auto ok = impl_->prepare(
            insert,
            "INSERT INTO episodes(action, tool, input, result, timestamp) VALUES (?1, ?2, ?3, ?4, ?5)");
        !ok) {
        return unexpected(ok.error());
    }
    const auto when =
        episode.timestamp == system_clock::time_point{} ? system_clock::now() : episode.timestamp;
    bindText(insert.stmt, 1, episode.action);
    bindText(insert.stmt, 2, episode.tool);
    bindText(insert.stmt, 3, episode.input);
    bindText(insert.stmt, 4, episode.result);
    sqlite3_bind_int64(insert.stmt, 5,
                       std::chrono::duration_cast<milliseconds>(when.time_since_epoch()).count());
    if (sqlite3_step(insert.stmt) != SQLITE_DONE) {
        return unexpected(storageError(impl_->path, "could not record an episode", impl_->db));
    }
    return sqlite3_last_insert_rowid(impl_->db);
}

expected<std::vector<EpisodeHit>, MemoryError> EpisodicStore::search(const std::string& keyword,
                                                                     std::size_t limit) const {
    if (keyword.empty() || limit == 0) {
        return std::vector<EpisodeHit>{};
    }
    const std::lock_guard lock(impl_->mutex);
    Statement query;
    const std::string sql = std::string("SELECT ") + kColumns +
                            " FROM episodes WHERE tool LIKE ?1 ESCAPE '\\' OR input LIKE ?1 ESCAPE '\\'"
                            " OR result LIKE ?1 ESCAPE '\\' ORDER BY timestamp DESC, id DESC LIMIT ?2";
    if (auto ok = impl_->prepare(query, sql.c_str()); !ok) {
        return unexpected(ok.error());
    }
    bindText(query.stmt, 1, likePattern(keyword));
    sqlite3_bind_int64(query.stmt, 2, static_cast<sqlite3_int64>(std::min<std::size_t>(limit, INT64_MAX)));
    auto episodes = impl_->rows(query.stmt, &readEpisode, "could not search");
    if (!episodes) {
        return unexpected(episodes.error());
    }
    std::vector<EpisodeHit> hits;
    hits.reserve(episodes->size());
    for (auto& episode : *episodes) {
        std::string snippet = snippetFor(episode, keyword);
        hits.push_back(EpisodeHit{std::move(episode), std::move(snippet)});
    }
    return hits;
}

expected<std::vector<Episode>, MemoryError> EpisodicStore::recent(std::size_t limit) const {
    const std::lock_guard lock(impl_->mutex);
    Statement query;
    const std::string sql =
        std::string("SELECT ") + kColumns + " FROM episodes ORDER BY timestamp DESC, id DESC LIMIT ?1";
    if (auto ok = impl_->prepare(query, sql.c_str()); !ok) {
        return unexpected(ok.error());
    }
    sqlite3_bind_int64(query.stmt, 1, static_cast<sqlite3_int64>(std::min<std::size_t>(limit, INT64_MAX)));
    return impl_->rows(query.stmt, &readEpisode, "could not read recent episodes");
}

expected<Episode, MemoryError> EpisodicStore::find(std::int64_t id) const {
    const std::lock_guard lock(impl_->mutex);
    Statement query;
    const std::string sql = std::string("SELECT ") + kColumns + " FROM episodes WHERE id = ?1";
    if (auto ok = impl_->prepare(query, sql.c_str()); !ok) {
        return unexpected(ok.error());
    }
    sqlite3_bind_int64(query.stmt, 1, id);
    auto episodes = impl_->rows(query.stmt, &readEpisode, "could not read an episode");
    if (!episodes) {
        return unexpected(episodes.error());
    }
    if (episodes->empty()) {
        return unexpected(MemoryError{MemoryErrc::not_found, "no episode #" + std::to_string(id) + " in '" +
                                                                 impl_->path + "' (search to find ids)"});
    }
    return std::move(episodes->front());
}

expected<std::size_t, MemoryError> EpisodicStore::count() const {
    const std::lock_guard lock(impl_->mutex);
    Statement query;
    if (auto ok = impl_->prepare(query, "SELECT COUNT(*) FROM episodes"); !ok) {
        return unexpected(ok.error());
    }
    if (sqlite3_step(query.stmt) != SQLITE_ROW) {
        return unexpected(storageError(impl_->path, "could not count episodes", impl_->db));
    }
    return static_cast<std::size_t>(sqlite3_column_int64(query.stmt, 0));
}

}  // namespace reagent::memory
