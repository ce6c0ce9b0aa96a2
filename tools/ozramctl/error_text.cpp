#include "error_text.hpp"

#include "ozram/error.hpp"

namespace ozramctl {

std::string error_text(const std::exception& error) {
    std::string text = error.what();
    if (const auto* system = dynamic_cast<const ozram::Error*>(&error)) {
        const std::string appended = ": " + system->code().message();
        if (text.size() > appended.size() && text.ends_with(appended)) {
            text.resize(text.size() - appended.size());
        }
    }
    return text;
}

}  // namespace ozramctl
