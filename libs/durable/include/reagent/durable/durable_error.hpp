#pragma once
/// \file
/// \brief `DurableError`: why a durable-run store refused an operation.

#include <boost/describe/enum.hpp>
#include <string>
#include <string_view>

#include "reagent/core/error.hpp"

namespace reagent::durable {

/// \brief The reason a store operation failed. A failed operation changes nothing.
enum class DurableErrc {
    /// The request itself is wrong: an empty or over-long id or step name, a lease of zero length, input
    /// that is not a JSON object, a terminal outcome that is not one.
    invalid_input,
    /// No run has the id.
    not_found,
    /// The request contradicts what is stored: a run submitted again under its id with other input, an
    /// outcome for a run already finished, a decision for a run that has ended.
    conflict,
    /// The worker no longer holds the run: its lease was taken over (the run's epoch moved on), or the run
    /// was finished or cancelled. The write was refused; the worker must stop working on the run.
    lease_lost,
    /// The database could not be opened, read or written; the message names it and says why.
    storage_error,
    /// The database stayed locked by other connections for longer than the store waits (5 s). Nothing was
    /// written; retrying later may work.
    busy,
    /// The file is not a reagent run store (another application's database, or not a database at all). It
    /// was not changed.
    not_a_store,
    /// The database was written by a newer reagent (its schema version is higher than this one knows). It
    /// was not changed; use the newer reagent, or another database.
    schema_too_new,
    /// The caller was cancelled while the store waited for a lock.
    cancelled,
};
BOOST_DESCRIBE_ENUM(DurableErrc, invalid_input, not_found, conflict, lease_lost, storage_error, busy,
                    not_a_store, schema_too_new, cancelled)

/// \brief The code's name as shown in logs and by the CLI (`"lease_lost"`, ...).
[[nodiscard]] std::string_view toString(DurableErrc code) noexcept;

/// \brief A failed store operation: a code and a message a person can act on.
using DurableError = reagent::Error<DurableErrc>;

}  // namespace reagent::durable
