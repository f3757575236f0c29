package toolchain

import (
	"os"
	"path/filepath"
)

// CacheDirEnv names the environment variable that sets lsugen's cache
// directory, which holds built Verilator simulators, the outputs of
// simulation and OpenSTA runs and formal proof results, each in a
// subdirectory; "off" disables every cache. The
// default is lsugen under the user's cache directory (os.UserCacheDir).
const CacheDirEnv = "LSUGEN_CACHE_DIR"

// CacheRoot is lsugen's cache directory, or "" when there is none (the
// cache is off, or the user has no cache directory).
func CacheRoot() string {
	if d := os.Getenv(CacheDirEnv); d != "" {
		if d == "off" {
			return ""
		}
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "lsugen")
}
