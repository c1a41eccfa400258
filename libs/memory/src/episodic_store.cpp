#include "reagent/memory/episodic_store.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <ctime>
#include <limits>
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

// Inserts the episode's row; its id.
expected<std::int64_t, MemoryError> EpisodicStore::Impl::insertEpisode(const Episode& episode) const {
    Statement insert;
    if (auto ok = prepare(
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
        return unexpected(storageError(path, "could not record an episode", db));
    }
    return sqlite3_last_insert_rowid(db);
}

// Inserts the rows of episode `id`'s attachments, and their bytes unless a row already holds them.
expected<void, MemoryError> EpisodicStore::Impl::insertAttachments(
    std::int64_t id, const std::vector<llm::Attachment>& attachments) const {
    Statement blob;
    Statement row;
    if (auto ok = prepare(blob, "INSERT OR IGNORE INTO blobs(hash, bytes) VALUES (?1, ?2)"); !ok) {
        return ok;
    }
    if (auto ok = prepare(row,
                          "INSERT INTO episode_attachments(episode, position, media_type, name, url, "
                          "hash) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
        !ok) {
        return ok;
    }
    for (std::size_t position = 0; position < attachments.size(); ++position) {
        const llm::Attachment& attachment = attachments[position];
        std::string hash;
        if (attachment.bytes) {
            hash = llm::contentHash(*attachment.bytes);
            bindText(blob.stmt, 1, hash);
            sqlite3_bind_blob64(blob.stmt, 2, attachment.bytes->data(), attachment.bytes->size(),
                                SQLITE_STATIC);
            if (sqlite3_step(blob.stmt) != SQLITE_DONE) {
                return unexpected(storageError(path, "could not record an attachment", db));
            }
            sqlite3_reset(blob.stmt);
        }
        sqlite3_bind_int64(row.stmt, 1, id);
        sqlite3_bind_int64(row.stmt, 2, static_cast<sqlite3_int64>(position));
        bindText(row.stmt, 3, attachment.mediaType);
        bindText(row.stmt, 4, attachment.name);
        bindText(row.stmt, 5, attachment.url);
        if (hash.empty()) {
            sqlite3_bind_null(row.stmt, 6);
        } else {
            bindText(row.stmt, 6, hash);
        }
        if (sqlite3_step(row.stmt) != SQLITE_DONE) {
            return unexpected(storageError(path, "could not record an attachment", db));
        }
        sqlite3_reset(row.stmt);
    }
    return {};
}

// The attachments of `episode`, read back; a row whose bytes are gone or no longer an attachment is the
// file's damage, reported rather than dropped.
expected<void, MemoryError> EpisodicStore::Impl::loadAttachments(Episode& episode) const {
    if (!attachments) {
        return {};
    }
    Statement query;
    if (auto ok = prepare(query,
                          "SELECT a.media_type, a.name, a.url, a.hash, b.bytes FROM episode_attachments a "
                          "LEFT JOIN blobs b ON b.hash = a.hash WHERE a.episode = ?1 ORDER BY a.position");
        !ok) {
        return ok;
    }
    sqlite3_bind_int64(query.stmt, 1, episode.id);
    for (int rc = sqlite3_step(query.stmt); rc != SQLITE_DONE; rc = sqlite3_step(query.stmt)) {
        if (rc != SQLITE_ROW) {
            return unexpected(storageError(path, "could not read an attachment", db));
        }
        const std::string mediaType = columnText(query.stmt, 0);
        std::string name = columnText(query.stmt, 1);
        std::string url = columnText(query.stmt, 2);
        expected<llm::Attachment, llm::AttachmentError> attachment = fail(llm::AttachmentError{});
        if (!url.empty()) {
            attachment = llm::Attachment::fromUrl(std::move(url), mediaType);
        } else if (sqlite3_column_type(query.stmt, 4) == SQLITE_BLOB) {
            const auto* data = static_cast<const char*>(sqlite3_column_blob(query.stmt, 4));
            // As recorded, whatever its size: the limits were the recorder's to apply.
            attachment = llm::Attachment::fromBytes(
                std::string(data, static_cast<std::size_t>(sqlite3_column_bytes(query.stmt, 4))), name,
                llm::AttachmentLimits{std::numeric_limits<std::size_t>::max()});
        } else {
            return unexpected(MemoryError{MemoryErrc::storage_error,
                                          "episode #" + std::to_string(episode.id) + " in '" + path +
                                              "' names attachment bytes the file no longer holds (hash " +
                                              columnText(query.stmt, 3) + ")"});
        }
        if (!attachment) {
            return unexpected(MemoryError{
                MemoryErrc::storage_error,
                "episode #" + std::to_string(episode.id) + " in '" + path +
                    "' has an attachment that cannot be read back: " + attachment.error().message});
        }
        attachment->name = std::move(name);
        episode.attachments.push_back(std::move(*attachment));
    }
    return {};
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
    if (episode.attachments.empty()) {
        return impl_->insertEpisode(episode);  // one statement: its own transaction
    }
    if (auto begun = impl_->exec("BEGIN IMMEDIATE", "could not lock the file to record an episode"); !begun) {
        return unexpected(begun.error());
    }
    auto id = impl_->insertEpisode(episode);
    expected<void, MemoryError> done = id ? impl_->insertAttachments(*id, episode.attachments)
                                          : expected<void, MemoryError>(unexpected(id.error()));
    if (done) {
        done = impl_->exec("COMMIT", "could not commit an episode");
    }
    if (!done) {
        sqlite3_exec(impl_->db, "ROLLBACK", nullptr, nullptr, nullptr);
        return unexpected(done.error());
    }
    return id;
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
    auto episodes = impl_->rows(query.stmt, &readEpisode, "could not read recent episodes");
    if (episodes) {
        for (Episode& episode : *episodes) {
            if (auto loaded = impl_->loadAttachments(episode); !loaded) {
                return unexpected(loaded.error());
            }
        }
    }
    return episodes;
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
    if (auto loaded = impl_->loadAttachments(episodes->front()); !loaded) {
        return unexpected(loaded.error());
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
