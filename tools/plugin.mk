# A clang plugin (PLUGIN, from SOURCE), loaded by clang-22 with -fplugin or -load: built against
# the installed clang's headers; its symbols resolve in the clang that loads it. Included by
# each plugin's Makefile after it sets PLUGIN and SOURCE.
LLVM_CONFIG ?= llvm-config-22
CXXFLAGS := $(shell $(LLVM_CONFIG) --cxxflags) -fPIC -fno-rtti -O2 -Wall -Wno-unused-parameter
LDFLAGS := -shared -Wl,--allow-shlib-undefined

build/$(PLUGIN).so: $(SOURCE) Makefile ../plugin.mk
	mkdir -p build
	$(CXX) $(CXXFLAGS) $(LDFLAGS) -o $@.tmp $< && mv $@.tmp $@

clean:
	rm -rf build
.PHONY: clean
