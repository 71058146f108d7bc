// u_throw - a C++ target for libstdc++'s SDT markers: a throw caught at
// once, then a throw caught by catch (...), rethrown and caught again.
#include <cstdio>
#include <stdexcept>

__attribute__((noipa)) static void u_thrower(int n)
{
	if (n > 0)
		throw std::runtime_error("boom");
}

int main()
{
	try {
		u_thrower(1);
	} catch (const std::exception &e) {
		std::printf("caught %s\n", e.what());
	}
	try {
		try {
			u_thrower(2);
		} catch (...) {
			throw;
		}
	} catch (const std::runtime_error &e) {
		std::printf("caught again %s\n", e.what());
	}
	return 0;
}
