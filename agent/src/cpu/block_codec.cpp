#include "cpu/block_codec.hpp"

#include "cpu/codecs.hpp"

namespace ozram {

std::unique_ptr<BlockCodec> make_block_codec(Algorithm algorithm, int lz4_acceleration, int level) {
    switch (algorithm) {
        case Algorithm::Lz4:
            return codecs::make_lz4(level != 0 ? level : lz4_acceleration);
        case Algorithm::Lz4hc:
            return codecs::make_lz4hc(level);
        case Algorithm::Lzo:
        case Algorithm::LzoRle:
            return codecs::make_lzo();
        case Algorithm::Zstd:
            return codecs::make_zstd(level);
    }
    return nullptr;
}

bool decompress_block(Algorithm algorithm, const std::uint8_t* src, std::size_t len,
                      std::uint8_t* page) {
    switch (algorithm) {
        case Algorithm::Lz4:
        case Algorithm::Lz4hc:
            return codecs::decompress_lz4(src, len, page);
        case Algorithm::Lzo:
        case Algorithm::LzoRle:
            return codecs::decompress_lzo(src, len, page);
        case Algorithm::Zstd:
            return codecs::decompress_zstd(src, len, page);
    }
    return false;
}

}  // namespace ozram
