import importlib.util, json, os, sys, sysconfig

installed = []
for name in json.loads(sys.argv[1]):
    try:
        if importlib.util.find_spec(name) is not None:
            installed.append(name)
    except Exception:
        pass
print(json.dumps({
    "executable": sys.executable,
    "prefix": sys.prefix,
    "base_prefix": sys.base_prefix,
    "version": sys.version.split()[0],
    "path": [p for p in sys.path if os.path.isabs(p)],
    "libdir": sysconfig.get_config_var("LIBDIR") or "",
    "installed": installed,
}))
