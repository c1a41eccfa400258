#include "gzip.hpp"

#include <boost/iostreams/copy.hpp>
#include <boost/iostreams/device/back_inserter.hpp>
#include <boost/iostreams/filter/gzip.hpp>
#include <boost/iostreams/filtering_stream.hpp>

namespace reagent::telemetry::detail {

std::optional<std::string> gzipCompress(std::string_view data) noexcept {
    namespace io = boost::iostreams;
    try {
        std::string out;
        {
            io::filtering_ostream stream;
            stream.push(io::gzip_compressor());
            stream.push(io::back_inserter(out));
            stream.write(data.data(), static_cast<std::streamsize>(data.size()));
        }  // closing the stream writes the gzip trailer
        return out;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

}  // namespace reagent::telemetry::detail
