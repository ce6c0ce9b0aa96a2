#include "cli/arguments.hpp"

#include "cli/usage_error.hpp"

namespace ozram::cli {

Arguments::Arguments(std::vector<std::string_view> args) : args_(std::move(args)) {}

Arguments::Arguments(const std::vector<std::string>& args) : args_(args.begin(), args.end()) {}

bool Arguments::next() {
    if (!bundled_.empty()) {
        bundled_name_ = std::string("-") + bundled_.front();
        argument_ = name_ = bundled_name_;
        attached_ = bundled_.substr(1);
        has_attached_ = !attached_.empty();
        is_option_ = true;
        bundled_ = {};
        return true;
    }
    while (next_ < args_.size()) {
        argument_ = args_[next_++];
        if (!options_ended_ && argument_ == "--") {
            options_ended_ = true;
            continue;
        }
        is_option_ = !options_ended_ && argument_.size() > 1 && argument_.front() == '-';
        name_ = argument_;
        attached_ = {};
        has_attached_ = false;
        if (is_option_ && argument_.starts_with("--")) {
            if (const auto equals = argument_.find('='); equals != std::string_view::npos) {
                name_ = argument_.substr(0, equals);
                attached_ = argument_.substr(equals + 1);
                has_attached_ = true;
            }
        } else if (is_option_ && argument_.size() > 2) {
            name_ = argument_.substr(0, 2);
            attached_ = argument_.substr(2);
            has_attached_ = true;
        }
        return true;
    }
    return false;
}

std::string_view Arguments::value() {
    if (has_attached_) {
        if (attached_.empty()) {
            throw missing_value(name_);  // "--name="
        }
        return attached_;
    }
    if (next_ >= args_.size()) {
        throw missing_value(name_);
    }
    return args_[next_++];
}

void Arguments::flag() {
    if (!has_attached_) {
        return;
    }
    if (name_.starts_with("--")) {
        throw unwanted_value(name_);
    }
    bundled_ = attached_;
}

void Arguments::reject() const {
    if (is_option_) {
        // A short one is named alone, as getopt names it in a bundle.
        throw unknown_option(argument_.starts_with("--") ? argument_ : name_);
    }
    throw unexpected_argument(argument_);
}

}  // namespace ozram::cli
