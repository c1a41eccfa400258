#pragma once
/// \file
/// \brief `MemoryError`: why working memory refused a read or a write.

#include <boost/describe/enum.hpp>
#include <string>
#include <string_view>

#include "reagent/core/error.hpp"

namespace reagent::memory {

/// \brief The reason a memory (working or episodic) operation failed. Nothing is changed when an operation
/// fails.
enum class MemoryErrc {
    /// A key given to `put` is empty, longer than 128 characters, uses a character outside
    /// `[A-Za-z0-9_.:-]`, or starts with the reserved prefix `_tool_result_`.
    invalid_key,
    /// No value is stored under the key: it was never stored, was erased, or was evicted.
    not_found,
    /// A single value is larger than the whole byte budget, so no eviction could make it fit.
    too_large,
    /// The episodic store's SQLite database could not be opened, read or written (missing directory or
    /// file, dangling symbolic link, no permission, read-only file, corrupt file, disk full); the message
    /// names the file and SQLite's reason.
    storage_error,
    /// The episodic store's file is locked by another connection (a writer in another store object,
    /// thread or process) and stayed locked for as long as the caller allowed (`EpisodicStore::record`
    /// with a lock wait; the default wait is the busy timeout). Nothing was written; retrying later may work.
    busy,
    /// The file exists but is not a reagent episodic store: not an SQLite database, empty (read-only
    /// open), another application's database, or a store written by a newer reagent. It was not changed.
    not_a_store,
    /// A saved working memory given to `WorkingMemory::load` is not one `WorkingMemory::save` made.
    invalid_data,
};
BOOST_DESCRIBE_ENUM(MemoryErrc, invalid_key, not_found, too_large, storage_error, busy, not_a_store,
                    invalid_data)

/// \brief The code's name as shown to the model and in logs (`"invalid_key"`, ...).
[[nodiscard]] std::string_view toString(MemoryErrc code) noexcept;

/// \brief A failed memory operation: a code and a message a person (or model) can act on.
using MemoryError = reagent::Error<MemoryErrc>;

}  // namespace reagent::memory
