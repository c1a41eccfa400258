#include "reagent/core/detail/exception_message.hpp"

#include <boost/asio/error.hpp>
#include <boost/system/system_error.hpp>
#include <stdexcept>

namespace reagent::detail {

std::string exceptionMessage(const std::exception_ptr& error) {
    if (!error) {
        return "no exception";
    }
    try {
        std::rethrow_exception(error);
    } catch (const std::exception& e) {
        return e.what();
    } catch (...) {
        return "unknown exception (not derived from std::exception)";
    }
}

bool isCancellation(const std::exception_ptr& error) {
    if (!error) {
        return false;
    }
    try {
        std::rethrow_exception(error);
    } catch (const boost::system::system_error& e) {
        return e.code() == boost::asio::error::operation_aborted;
    } catch (...) {
        return false;
    }
}

}  // namespace reagent::detail
