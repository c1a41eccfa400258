// `toString(DocumentErrc)`: the enumerator's own name, from its Boost.Describe description.

#include "reagent/documents/document_error.hpp"

#include "reagent/core/enum_name.hpp"

namespace reagent::documents {

std::string_view toString(DocumentErrc code) noexcept {
    return enumName(code);
}

}  // namespace reagent::documents
