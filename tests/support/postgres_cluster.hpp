#pragma once
// The private PostgreSQL cluster ctest starts for tests registered with POSTGRES (tests/CMakeLists.txt,
// tests/peers/postgres/cluster.sh): its URL, a schema name no other test uses, and blocking SQL for the
// tests that tamper with the database behind a store's back.

#include <libpq-fe.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>

namespace reagent::test {

/// The cluster's URL; throws when the test runs outside ctest (which starts the cluster).
inline std::string postgresTestUrl() {
    const char* state = std::getenv("REAGENT_TEST_POSTGRES");
    std::ifstream file(state != nullptr ? state : "");
    std::string url;
    if (state == nullptr || !std::getline(file, url) || url.empty()) {
        throw std::runtime_error(
            "no PostgreSQL cluster: run this test through ctest, which starts one "
            "(tests/peers/postgres/cluster.sh)");
    }
    return url;
}

/// A schema name of its own for one test: `t_` and 16 hex digits.
inline std::string uniqueSchema() {
    std::random_device source;
    static constexpr char kHex[] = "0123456789abcdef";
    std::string name = "t_";
    for (int i = 0; i < 16; ++i) {
        name.push_back(kHex[source() % 16]);
    }
    return name;
}

/// Runs `sql` on a connection of its own to the cluster and returns the first column of its first row
/// (empty when none); throws with the server's message when it fails.
inline std::string postgresExec(const std::string& sql) {
    PGconn* conn = PQconnectdb(postgresTestUrl().c_str());
    if (PQstatus(conn) != CONNECTION_OK) {
        std::string error = PQerrorMessage(conn);
        PQfinish(conn);
        throw std::runtime_error("cannot connect to the test cluster: " + error);
    }
    PGresult* result = PQexec(conn, sql.c_str());
    const ExecStatusType status = PQresultStatus(result);
    std::string value;
    if (status == PGRES_TUPLES_OK && PQntuples(result) > 0) {
        value = PQgetvalue(result, 0, 0);
    }
    std::string error = PQresultErrorMessage(result);
    PQclear(result);
    PQfinish(conn);
    if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
        throw std::runtime_error("'" + sql + "' failed: " + error);
    }
    return value;
}

/// The URL of a new, empty database of its own in the cluster (for processes that take a URL only).
inline std::string newTestDatabase() {
    const std::string database = uniqueSchema();
    postgresExec("CREATE DATABASE " + database);
    const std::string cluster = postgresTestUrl();
    return cluster.substr(0, cluster.rfind('/') + 1) + database;
}

}  // namespace reagent::test
