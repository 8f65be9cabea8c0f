"""The build cache of compiled Kokkos modules, under ``$KPC_CACHE_DIR`` (default ``~/.cache/kpc``).

An entry is a folder ``<root>/modules/<key[:2]>/<key>/`` holding the generated C++
source, the compiled extension and ``manifest.json``, written last, with the
extension's SHA-256. The key hashes everything the binary depends on (see
``cache_key``). Entries are built in a temporary folder and renamed into place; a
per-key lock makes concurrent builds of one key wait for each other, so every process
succeeds and only one compiles. The lock is a POSIX record lock (``fcntl.lockf``), which
NFS carries between nodes (its lock manager, or NFSv4 itself), where ``flock`` may lock
only the local node; record locks belong to a process, so a per-key thread lock in front
of it keeps the threads of one process apart too; where the file system has no record
locks (``ENOLCK``: NFS mounted ``nolock``), an atomically created lock directory takes
their place. A rename that finds its entry already there (another node built it while a
stale directory listing hid it) keeps that entry once it verifies. An entry whose
manifest is missing or unreadable, or whose extension's size or checksum disagrees with
it, is never loaded: the next build of that key replaces it.

>>> key = cache_key({"source": "int f();", "space": "openmp"})
>>> len(key), key == cache_key({"space": "openmp", "source": "int f();"})
(40, True)
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import threading
import time
from pathlib import Path
from typing import Callable, Optional

MANIFEST = "manifest.json"
SOURCE = "module.cpp"
FORMAT = 1
KEY_LENGTH = 40


def cache_key(material: dict) -> str:
    """A stable hash of a JSON-able description of a build."""
    text = json.dumps(material, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:KEY_LENGTH]


def module_name(key: str) -> str:
    """The Python name of the extension module of an entry (its ``PyInit_`` suffix)."""
    return f"kpc_{key[:24]}"


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class CacheCorrupt(Exception):
    """An entry exists but must not be loaded (the message says why)."""


class Entry:
    """A verified cache entry (a plain class: loading a cached module imports little)."""

    __slots__ = ("key", "path", "manifest")

    def __init__(self, key: str, path: Path, manifest: dict):
        self.key = key
        self.path = path
        self.manifest = manifest

    @property
    def library(self) -> Path:
        return self.path / self.manifest["library"]

    @property
    def source(self) -> Path:
        return self.path / self.manifest["source"]

    @property
    def module_name(self) -> str:
        return self.manifest["module"]


class BuildFailed(Exception):
    """Compiling an entry failed; ``source`` is the kept generated source."""

    def __init__(self, message: str, source: Path, cause: BaseException):
        super().__init__(message)
        self.source = source
        self.cause = cause


class BuildCache:
    """The cache rooted at ``root`` (default: ``$KPC_CACHE_DIR`` or ``~/.cache/kpc``)."""

    def __init__(self, root: Optional[Path] = None):
        if root is None:
            from .cache_dir import cache_root  # imports tempfile: only when no root is given

            root = cache_root()
        self.root = Path(root)
        self._verified: dict = {}

    # ------------------------------------------------------------ layout
    @property
    def modules_dir(self) -> Path:
        return self.root / "modules"

    def entry_dir(self, key: str) -> Path:
        return self.modules_dir / key[:2] / key

    def failed_dir(self, key: str) -> Path:
        return self.root / "failed" / key

    def lock_path(self, key: str) -> Path:
        return self.root / "locks" / f"{key}.lock"

    # ------------------------------------------------------------ reading
    def verify(self, key: str) -> Entry:
        """The entry of ``key``, checked against its manifest; ``CacheCorrupt`` or
        ``FileNotFoundError`` otherwise. The checksum is verified once per process."""
        path = self.entry_dir(key)
        manifest_path = path / MANIFEST
        try:
            manifest = json.loads(manifest_path.read_text())
        except FileNotFoundError:
            if path.exists():
                raise CacheCorrupt(f"{path} has no manifest (interrupted build?)") from None
            raise
        except (OSError, ValueError) as error:
            raise CacheCorrupt(f"{manifest_path} is unreadable: {error}") from None
        if not isinstance(manifest, dict) or manifest.get("key") != key or manifest.get("format") != FORMAT:
            raise CacheCorrupt(f"{manifest_path} does not describe entry {key}")
        library = path / str(manifest.get("library", ""))
        try:
            stat = library.stat()
        except OSError:
            raise CacheCorrupt(f"{library} is missing") from None
        if stat.st_size != manifest.get("size"):
            raise CacheCorrupt(f"{library} has {stat.st_size} bytes, its manifest says {manifest.get('size')}")
        stamp = (str(library), stat.st_size, stat.st_mtime_ns)
        if self._verified.get(key) != stamp:
            if file_sha256(library) != manifest.get("sha256"):
                raise CacheCorrupt(f"{library} does not match the checksum in its manifest")
            self._verified[key] = stamp
        return Entry(key, path, manifest)

    def lookup(self, key: str) -> Optional[Entry]:
        """The valid entry of ``key``, or None (missing or corrupt)."""
        try:
            return self.verify(key)
        except (FileNotFoundError, CacheCorrupt):
            return None

    # ------------------------------------------------------------ writing
    @contextlib.contextmanager
    def locked(self, key: str):
        """Hold the build lock of ``key`` (blocks while another process, or thread, builds it)."""
        lock = self.lock_path(key)
        with _thread_lock(lock):
            lock.parent.mkdir(parents=True, exist_ok=True)
            with open(lock, "a+") as handle:
                try:
                    fcntl.lockf(handle.fileno(), fcntl.LOCK_EX)
                except OSError as error:
                    if error.errno not in _NO_RECORD_LOCKS:
                        raise
                    with _directory_lock(lock.with_suffix(".held")):
                        yield
                    return
                try:
                    yield
                finally:
                    fcntl.lockf(handle.fileno(), fcntl.LOCK_UN)

    def get_or_build(self, key: str, source: str, compile_source: Callable, metadata: dict,
                     library_suffix: str = ".so") -> tuple:
        """The entry of ``key``, building it when missing or corrupt. Returns ``(entry, built)``.

        ``compile_source(source_path, library_path, module_name)`` compiles; when it raises,
        the generated source is kept under ``<root>/failed/<key>/`` and ``BuildFailed``
        names it.
        """
        entry = self.lookup(key)
        if entry is not None:
            return entry, False
        with self.locked(key):
            entry = self.lookup(key)
            if entry is not None:
                return entry, False
            self._discard(self.entry_dir(key))
            return self._build(key, source, compile_source, metadata, library_suffix), True

    def _build(self, key, source, compile_source, metadata, library_suffix) -> Entry:
        name = module_name(key)
        staging_root = self.root / "tmp"
        staging_root.mkdir(parents=True, exist_ok=True)
        import shutil
        import tempfile

        staging = Path(tempfile.mkdtemp(prefix=f"{key[:12]}-", dir=staging_root))
        try:
            source_path = staging / SOURCE
            source_path.write_text(source)
            library = staging / f"{name}{library_suffix}"
            started = time.time()
            try:
                compile_source(source_path, library, name)
            except Exception as error:
                kept = self._keep_failed(key, source)
                raise BuildFailed(f"{error}\n(generated source kept at {kept})", kept, error) from error
            manifest = dict(metadata)
            manifest.update({
                "format": FORMAT,
                "key": key,
                "module": name,
                "library": library.name,
                "source": SOURCE,
                "size": library.stat().st_size,
                "sha256": file_sha256(library),
                "created": time.time(),
                "build_seconds": round(time.time() - started, 3),
            })
            _write_json(staging / MANIFEST, manifest)
            final = self.entry_dir(key)
            final.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.rename(staging, final)
            except OSError:
                if self.lookup(key) is None:
                    raise
                shutil.rmtree(staging, ignore_errors=True)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        return self.verify(key)

    def _keep_failed(self, key: str, source: str) -> Path:
        folder = self.failed_dir(key)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / SOURCE
        path.write_text(source)
        return path

    def _discard(self, path: Path) -> None:
        """Remove a corrupt entry: rename it away (into ``tmp``) first so no reader sees it half deleted."""
        from .cache_dir import discard_folder

        discard_folder(path, aside=self.root / "tmp")

    # ------------------------------------------------------------ index of lazy specializations
    def index_path(self, index_key: str) -> Path:
        return self.root / "index" / index_key[:2] / f"{index_key}.json"

    def read_index(self, index_key: str) -> Optional[dict]:
        try:
            return json.loads(self.index_path(index_key).read_text())
        except (OSError, ValueError):
            return None

    def write_index(self, index_key: str, record: dict) -> None:
        _write_json(self.index_path(index_key), record)

    def fallbacks(self) -> list:
        """The index's records of signatures that ran as Numba (``kpc.runtime.fallback``), newest first."""
        found = []
        folder = self.root / "index"
        for path in (folder.glob("*/*.json") if folder.is_dir() else ()):
            try:
                record = json.loads(path.read_text())
            except (OSError, ValueError):
                continue
            if isinstance(record, dict) and "fallback" in record:
                found.append(record)
        found.sort(key=lambda record: -record.get("created", 0))
        return found

    # ------------------------------------------------------------ kpc cache ls | info | clear
    def entries(self) -> list:
        """Every entry folder with its manifest (``None`` when unreadable), newest first."""
        found = []
        if not self.modules_dir.is_dir():
            return found
        for shard in sorted(self.modules_dir.iterdir()):
            if not shard.is_dir():
                continue
            for path in sorted(shard.iterdir()):
                try:
                    manifest = json.loads((path / MANIFEST).read_text())
                except (OSError, ValueError):
                    manifest = None
                found.append((path.name, path, manifest))
        found.sort(key=lambda item: -(item[2] or {}).get("created", 0))
        return found

    def find(self, prefix: str) -> list:
        return [item for item in self.entries() if item[0].startswith(prefix)]

    def clear(self, prefix: str = "") -> int:
        """Remove every entry (or those whose key starts with ``prefix``); return how many.
        Clearing everything also removes the precompiled headers and kpc's support library
        (``toolchain/pch``, ``toolchain/support``, rebuilt when needed) and Numba's cache of the user files kpc imported (``numba``)."""
        removed = 0
        for key, path, _ in self.entries():
            if key.startswith(prefix):
                with self.locked(key):
                    self._discard(path)
                removed += 1
        if not prefix:
            import shutil

            for folder in ("index", "failed", "tmp", "toolchain/pch", "toolchain/support", "numba"):
                shutil.rmtree(self.root / folder, ignore_errors=True)
        return removed


# A file system without record locks (NFS mounted with ``nolock``, no lock manager) says so
# with one of these; the cache then takes a lock no file system lacks, an atomic mkdir.
_NO_RECORD_LOCKS = (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS)
# A held directory lock older than this is taken to be left by a process that died mid-build.
STALE_LOCK_SECONDS = 1800.0


@contextlib.contextmanager
def _directory_lock(path: Path, poll: float = 0.1):
    """Hold ``path`` by creating it (``mkdir`` is atomic on every file system, NFS included)."""
    while True:
        try:
            os.mkdir(path)
            break
        except FileExistsError:
            try:
                if time.time() - path.stat().st_mtime > STALE_LOCK_SECONDS:
                    os.rmdir(path)
                    continue
            except OSError:
                continue
            time.sleep(poll)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.rmdir(path)


_thread_locks: dict = {}
_thread_locks_guard = threading.Lock()


def _thread_lock(path: Path) -> threading.Lock:
    """The one in-process lock of the lock file ``path``."""
    with _thread_locks_guard:
        return _thread_locks.setdefault(str(path), threading.Lock())


def _write_json(path: Path, data: dict) -> None:
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w") as stream:
            json.dump(data, stream, indent=2, sort_keys=True, default=str)
            stream.write("\n")
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


# --------------------------------------------------------------------------- text for `kpc cache`


def format_listing(cache: BuildCache) -> str:
    """One line per entry: key, size, age, the Python file and the signatures it holds."""
    lines = []
    for key, path, manifest in cache.entries():
        if manifest is None:
            lines.append(f"{key[:12]}  (corrupt: no readable manifest; rebuilt on next use)")
            continue
        size = manifest.get("size", 0) / 1e6
        source = os.path.basename(str(manifest.get("python_source", "?")))
        functions = sorted({e["function"] for e in manifest.get("entries", [])})
        lines.append(f"{key[:12]}  {size:6.2f} MB  {_age(manifest.get('created', 0)):>8}  "
                     f"{manifest.get('space', '?'):7}  {source}: {', '.join(functions)}")
    for record in cache.fallbacks():
        from .argument_types import format_type

        signature = ", ".join(format_type(tuple(t)) for t in record.get("types", []))
        where = f"{record['location']}: " if record.get("location") else ""
        lines.append(f"{'numba':12}  {_age(record.get('created', 0)):>18}  {'':7}  "
                     f"{os.path.basename(str(record.get('source', '?')))}: {record.get('function')}({signature}) "
                     f"ran as Numba: {where}{record.get('construct')}: {record.get('message')}")
    return "\n".join(lines) if lines else f"(no entries in {cache.root})"


def format_entry(key: str, path: Path, manifest: Optional[dict]) -> str:
    """Everything a manifest says about one entry, and whether it verifies."""
    lines = [f"key       {key}", f"folder    {path}"]
    if manifest is None:
        return "\n".join(lines + ["state     corrupt: no readable manifest (rebuilt on next use)"])
    try:
        BuildCache(path.parent.parent.parent).verify(key)
        state = "ok (checksum verified)"
    except (CacheCorrupt, FileNotFoundError) as error:
        state = f"corrupt: {error} (rebuilt on next use)"
    lines += [
        f"state     {state}",
        f"source    {manifest.get('python_source')}",
        f"space     {manifest.get('space')}",
        f"kokkos    {manifest.get('kokkos')}",
        f"compiler  {' '.join(str(c) for c in manifest.get('compiler', []))}",
        f"built     {time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(manifest.get('created', 0)))} "
        f"in {manifest.get('build_seconds', '?')} s",
        f"library   {manifest.get('library')} ({manifest.get('size')} bytes, sha256 {manifest.get('sha256')})",
        "entries",
    ]
    lines += [f"  {e['symbol']}: {e['function']}({', '.join(e['types'])})" for e in manifest.get("entries", [])]
    return "\n".join(lines)


def _age(created: float) -> str:
    seconds = max(0.0, time.time() - created)
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.0f} {unit}"
    return f"{seconds:.0f} s"
