#include "each_listed_device.hpp"

#include <exception>

namespace ozramctl {

void for_each_listed_device(const std::vector<std::string>& names,
                            const std::function<bool(const std::string&)>& exists,
                            const std::function<void(const std::string&)>& act) {
    for (const std::string& name : names) {
        try {
            act(name);
        } catch (const std::exception&) {
            // Whatever failed (a sysfs file gone, ENODEV from the module),
            // the device's absence afterwards is what says why.
            if (exists(name)) {
                throw;
            }
        }
    }
}

}  // namespace ozramctl
