"""ctypes declarations of libpagesift's public API (include/pagesift.h,
include/pagesift/batch.h, include/pagesift/util.h, and the headers of
OTHER_HEADERS) -- only what the module uses.  The structures mirror the C
ones field by field; tests/python/test_layout.py (STRUCTS) and
test_layout_other.py (OTHER_STRUCTS) compile a C program that
prints their sizes and offsets and check them against these, so a change to
a header that is not made here fails the tests instead of corrupting memory.

The research library libpagesift-lab (features(), train()) is loaded from
$PAGESIFT_LAB_LIBRARY, else beside libpagesift, else by the loader.

Where the library is found, first match wins:
  1. $PAGESIFT_LIBRARY (a path to libpagesift.so*), e.g. a build folder's;
  2. the library of the install this package belongs to (_install.py,
     written by `cmake --install`: the libdir relative to this folder);
  3. the system's loader (libpagesift.so.0 on its search path).
"""
import ctypes
import ctypes.util
import os

c_char_p = ctypes.c_char_p
c_void_p = ctypes.c_void_p
c_size_t = ctypes.c_size_t
c_int = ctypes.c_int
c_uint = ctypes.c_uint
c_double = ctypes.c_double
c_uint8 = ctypes.c_uint8
c_uint32 = ctypes.c_uint32
c_uint64 = ctypes.c_uint64
c_int32 = ctypes.c_int32
POINTER = ctypes.POINTER


class ps_error(ctypes.Structure):
    _fields_ = [("code", c_int), ("msg", ctypes.c_char * 512)]


class ps_fold(ctypes.Structure):
    _fields_ = [("k", c_uint), ("n", c_uint), ("complement", c_int)]


class ps_source_options(ctypes.Structure):
    _fields_ = [("max_bytes", c_size_t), ("jsonl_stdin", c_int), ("fold", ps_fold)]


class ps_input(ctypes.Structure):
    # pointers the library owns are c_void_p: ctypes must not copy or free them
    _fields_ = [
        ("id", c_void_p), ("url", c_void_p), ("charset", c_void_p), ("origin", c_void_p),
        ("gold_path", c_void_p), ("site", c_void_p), ("dataset", c_void_p),
        ("snippets", c_void_p), ("data", c_void_p), ("len", c_size_t), ("status", c_int),
        ("msg", ctypes.c_char * 512), ("skipped", c_int),
    ]


class ps_extraction(ctypes.Structure):
    _fields_ = [
        ("text", c_void_p), ("len", c_size_t), ("title", c_void_p), ("date", c_void_p),
        ("blocks_kept", c_uint32), ("blocks_removed", c_uint32),
        ("block_class", c_void_p), ("leaf_kept", c_void_p), ("model", c_char_p),
        ("block_score", c_void_p), ("page_type", c_char_p), ("page_type_prob", c_double),
    ]


class ps_extractor_config(ctypes.Structure):
    _fields_ = [("model_path", c_char_p), ("templates_dir", c_char_p), ("options", c_char_p),
                ("templates", c_void_p), ("site_models_dir", c_char_p), ("site_models_cap", c_size_t),
                ("page_types_path", c_char_p), ("method_options", c_void_p), ("site_base_path", c_char_p)]


class ps_option_info(ctypes.Structure):
    _fields_ = [("key", c_char_p), ("doc", c_char_p), ("accepts", ctypes.c_char * 256),
                ("default_value", ctypes.c_char * 64)]


class ps_step_options(ctypes.Structure):
    _fields_ = [("site_rule", c_int), ("max_bytes", c_size_t), ("deadline", c_double),
                ("page_flags", ctypes.c_uint)]


class ps_decoded(ctypes.Structure):
    _fields_ = [("utf8", c_void_p), ("len", c_size_t), ("charset", ctypes.c_char * 32),
                ("source", c_int), ("replaced", c_size_t)]


class ps_batch_config(ctypes.Structure):
    _fields_ = [
        ("extractor", c_void_p), ("learn_templates", c_int), ("method", c_char_p),
        ("extractor_config", POINTER(ps_extractor_config)), ("format", c_int),
        ("output_dir", c_char_p), ("out", c_void_p), ("text_headers", c_int),
        ("site_rule", c_int), ("max_bytes", c_size_t), ("workers", c_uint),
        ("unordered", c_int), ("quiet", c_int), ("total_hint", c_size_t),
        ("total_bytes", c_uint64), ("render_flags", c_uint), ("verbose", c_int),
        ("page_timeout", c_double), ("skip_existing", c_int), ("fail_fast", c_int),
        ("interrupt", POINTER(c_int)),  # const volatile sig_atomic_t *
        ("langs", c_char_p), ("dedup", c_int), ("dedup_distance", c_int), ("no_manifest", c_int),
    ]


class ps_batch_counts(ctypes.Structure):
    _fields_ = [
        ("read", c_size_t), ("extracted", c_size_t), ("empty", c_size_t), ("failed", c_size_t),
        ("skipped", c_size_t), ("bytes", c_size_t), ("learnt_pages", c_size_t),
        ("learnt_sites", c_size_t), ("setup_failed", c_int), ("interrupted", c_int),
        ("interrupted_learning", c_int),
        ("abandoned", c_size_t), ("filtered", c_size_t), ("duplicates", c_size_t),
        ("dedup_kept", c_size_t), ("dedup_memory", c_size_t),
    ]


class ps_block_csv_options(ctypes.Structure):
    _fields_ = [("extended", c_int), ("for_annotation", c_int), ("preview_chars", c_size_t),
                ("min_text", c_uint32), ("label_threshold", c_double),
                ("block_tags", POINTER(c_char_p))]


class ps_train_data_info(ctypes.Structure):
    _fields_ = [("rows", c_size_t), ("content", c_size_t), ("noise", c_size_t),
                ("unlabelled", c_size_t), ("groups", c_size_t), ("n_features", c_size_t),
                ("features", c_char_p), ("checksum", c_uint64), ("block_tags", c_char_p),
                ("untagged", c_size_t), ("untagged_files", c_char_p)]


class ps_train_options(ctypes.Structure):
    _fields_ = [
        ("balance", c_int), ("seed", c_uint64), ("folds", c_int), ("select_accuracy", c_int),
        ("c_start", c_double), ("c_stop", c_double), ("c_step", c_double),
        ("g_start", c_double), ("g_stop", c_double), ("g_step", c_double),
        ("coarse_fine", c_int), ("threads", c_int), ("cv_max_rows", c_size_t),
        ("cache_mb", c_double), ("quiet", c_int), ("verbose", c_int),
    ]


class ps_train_point(ctypes.Structure):
    _fields_ = [
        ("log2c", c_double), ("log2g", c_double), ("tp", c_size_t), ("fp", c_size_t),
        ("fn", c_size_t), ("tn", c_size_t), ("precision", c_double), ("recall", c_double),
        ("f1", c_double), ("accuracy", c_double), ("done", c_int), ("seconds", c_double),
    ]


class ps_train_grid(ctypes.Structure):
    _fields_ = [
        ("points", POINTER(ps_train_point)), ("n_c", c_size_t), ("n_g", c_size_t),
        ("best", c_size_t), ("cv_rows", c_size_t), ("cv_groups", c_size_t), ("folds", c_int),
        ("evaluated", c_size_t), ("wall_seconds", c_double),
    ]


# The structures test_layout.py checks against the C compiler's view of
# pagesift.h and pagesift/batch.h ...
STRUCTS = {
    "ps_error": ps_error, "ps_fold": ps_fold, "ps_source_options": ps_source_options,
    "ps_input": ps_input, "ps_extraction": ps_extraction,
    "ps_extractor_config": ps_extractor_config, "ps_step_options": ps_step_options,
    "ps_batch_config": ps_batch_config, "ps_batch_counts": ps_batch_counts,
}
# ... and those test_layout_other.py checks against the other headers.
OTHER_HEADERS = ["pagesift/page.h", "pagesift/train.h", "pagesift/labels.h", "pagesift/options.h"]
OTHER_STRUCTS = {
    "ps_decoded": ps_decoded, "ps_block_csv_options": ps_block_csv_options,
    "ps_train_data_info": ps_train_data_info, "ps_train_options": ps_train_options,
    "ps_train_point": ps_train_point, "ps_train_grid": ps_train_grid,
    "ps_option_info": ps_option_info,
}

# enum values used (pagesift.h, pagesift/batch.h)
PS_SITE_HOST, PS_SITE_HOST_PATH1 = 0, 1
PS_RENDER_LINKS, PS_RENDER_IMAGES = 1, 2
PS_DEDUP_EXACT = -1
PS_GROUP_PAGE, PS_GROUP_SITE = 0, 1
PS_BALANCE_NONE, PS_BALANCE_UNDERSAMPLE, PS_BALANCE_WEIGHT = 0, 1, 2
STATUS_NAMES = ["ok", "io", "format", "too_large", "nomem", "parse", "usage", "version", "timeout"]


def _candidates():
    env = os.environ.get("PAGESIFT_LIBRARY")
    if env:
        return [env], True
    out = []
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        from . import _install  # written by cmake --install
        out.append(os.path.normpath(os.path.join(here, _install.LIBDIR_FROM_PACKAGE,
                                                 "libpagesift.so.0")))
    except ImportError:
        pass
    out.append("libpagesift.so.0")
    found = ctypes.util.find_library("pagesift")
    if found:
        out.append(found)
    return out, False


def _load():
    names, explicit = _candidates()
    errors = []
    for name in names:
        try:
            return ctypes.CDLL(name), name
        except OSError as e:
            errors.append("%s (%s)" % (name, e))
            if explicit:
                break
    raise ImportError("pagesift: cannot load libpagesift: tried " + "; ".join(errors) +
                      ". Set PAGESIFT_LIBRARY to the path of libpagesift.so.0 (a build folder's "
                      "or an install's lib/).")


lib, LIBRARY_PATH = _load()
libc = ctypes.CDLL(None)


def _load_lab():
    """libpagesift-lab, the research library features() and train() call:
    $PAGESIFT_LAB_LIBRARY, else the one beside libpagesift, else the
    system's loader's.  (None, why) when none loads: the rest of the module
    works without it."""
    env = os.environ.get("PAGESIFT_LAB_LIBRARY")
    if env:
        names = [env]
    else:
        names = []
        here = os.path.dirname(LIBRARY_PATH)
        if here:
            names.append(os.path.join(here, "libpagesift-lab.so.0"))
        names.append("libpagesift-lab.so.0")
    errors = []
    for name in names:
        try:
            return ctypes.CDLL(name), name
        except OSError as e:
            errors.append("%s (%s)" % (name, e))
    return None, "; ".join(errors)


lab, LAB_LIBRARY_PATH = _load_lab()


def _fn(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


def _lab_fn(name, restype, *argtypes):
    """A call of libpagesift-lab; when the library could not be loaded, a
    stand-in that raises ImportError naming where it was looked for."""
    if lab is None:
        def missing(*args):
            raise ImportError("pagesift: %s needs libpagesift-lab, which cannot be loaded: tried %s. "
                              "Set PAGESIFT_LAB_LIBRARY to the path of libpagesift-lab.so.0."
                              % (name, LAB_LIBRARY_PATH))
        return missing
    f = getattr(lab, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


Err = POINTER(ps_error)

ps_version = _fn("ps_version", c_char_p)
ps_init = _fn("ps_init", None)
ps_extractor_new = _fn("ps_extractor_new", c_void_p, c_char_p, POINTER(ps_extractor_config), Err)
ps_extractor_free = _fn("ps_extractor_free", None, c_void_p)
ps_extractor_method = _fn("ps_extractor_method", c_char_p, c_void_p)
ps_extractor_is_stateful = _fn("ps_extractor_is_stateful", c_int, c_void_p)
ps_extractor_block_tags = _fn("ps_extractor_block_tags", POINTER(c_char_p), c_void_p)
ps_extract_input = _fn("ps_extract_input", c_int, c_void_p, POINTER(ps_input),
                       POINTER(ps_step_options), ctypes.c_char_p, c_size_t, POINTER(c_void_p),
                       POINTER(ps_extraction), Err)
ps_extraction_free = _fn("ps_extraction_free", None, POINTER(ps_extraction))
ps_input_clear = _fn("ps_input_clear", None, POINTER(ps_input))
ps_input_site = _fn("ps_input_site", None, POINTER(ps_input), c_int, ctypes.c_char_p, c_size_t)
ps_input_page = _fn("ps_input_page", c_void_p, POINTER(ps_input), POINTER(c_char_p), c_size_t, Err)
ps_prepare_input = _fn("ps_prepare_input", c_int, POINTER(ps_input), POINTER(c_char_p), c_void_p,
                       POINTER(ps_step_options), ctypes.c_char_p, c_size_t, POINTER(c_void_p),
                       POINTER(c_size_t), Err)
ps_page_free = _fn("ps_page_free", None, c_void_p)
ps_page_title = _fn("ps_page_title", c_char_p, c_void_p)
ps_page_decoding = _fn("ps_page_decoding", POINTER(ps_decoded), c_void_p)
# the output formats: the library's format table (output/formats.c)
ps_format_name = _fn("ps_format_name", c_char_p, c_size_t)
ps_format_find = _fn("ps_format_find", c_int, c_char_p)
ps_format_page = _fn("ps_format_page", c_void_p, c_int, c_void_p, POINTER(ps_extraction),
                     POINTER(ps_input), c_char_p, c_char_p, c_uint, POINTER(c_size_t), Err)
ps_method_count = _fn("ps_method_count", c_size_t)
ps_method_name = _fn("ps_method_name", c_char_p, c_size_t)
# pagesift/options.h: the methods' option tables, typed values checked against them
ps_method_option = _fn("ps_method_option", c_int, c_char_p, c_size_t, POINTER(ps_option_info))
ps_options_new = _fn("ps_options_new", c_void_p, c_char_p, Err)
ps_options_set = _fn("ps_options_set", c_int, c_void_p, c_char_p, c_char_p, Err)
ps_options_parse = _fn("ps_options_parse", c_int, c_void_p, c_char_p, Err)
ps_options_free = _fn("ps_options_free", None, c_void_p)
ps_model_default_path = _fn("ps_model_default_path", c_char_p)

ps_source_open = _fn("ps_source_open", c_void_p, POINTER(c_char_p), c_size_t, c_char_p,
                     POINTER(ps_source_options), Err)
ps_source_next = _fn("ps_source_next", c_int, c_void_p, POINTER(ps_input), Err)
ps_source_free = _fn("ps_source_free", None, c_void_p)
ps_source_total_hint = _fn("ps_source_total_hint", c_size_t, c_void_p)

ps_batch_run = _fn("ps_batch_run", c_int, POINTER(ps_batch_config), c_void_p,
                   POINTER(ps_batch_counts), Err)
ps_atomic_open = _fn("ps_atomic_open", c_void_p, c_char_p, ctypes.c_char_p, c_size_t, Err)
ps_atomic_commit = _fn("ps_atomic_commit", c_int, c_void_p, c_char_p, c_char_p, Err)
ps_atomic_abort = _fn("ps_atomic_abort", None, c_void_p, c_char_p)

ps_template_builder_new = _fn("ps_template_builder_new", c_void_p, c_void_p)
ps_template_builder_add = _fn("ps_template_builder_add", c_int, c_void_p, c_char_p, c_void_p, Err)
ps_template_builder_write_dir = _fn("ps_template_builder_write_dir", c_int, c_void_p, c_char_p, Err)
ps_template_builder_free = _fn("ps_template_builder_free", None, c_void_p)
ps_template_builder_sites = _fn("ps_template_builder_sites", c_size_t, c_void_p)
ps_template_builder_pages = _fn("ps_template_builder_pages", c_uint64, c_void_p)

ps_block_csv_new = _lab_fn("ps_block_csv_new", c_void_p, c_void_p, POINTER(ps_block_csv_options), Err)
ps_block_csv_page = _lab_fn("ps_block_csv_page", c_int, c_void_p, c_char_p, c_char_p, c_char_p,
                            c_void_p, c_char_p, c_size_t, c_void_p, Err)
ps_block_csv_page_snippets = _lab_fn("ps_block_csv_page_snippets", c_int, c_void_p, c_char_p, c_char_p,
                                     c_char_p, c_void_p, c_void_p, c_void_p, Err)
ps_block_csv_finish = _lab_fn("ps_block_csv_finish", c_int, c_void_p, Err)
ps_template_store_open = _fn("ps_template_store_open", c_void_p, c_char_p, Err)
ps_template_store_get = _fn("ps_template_store_get", c_void_p, c_void_p, c_char_p)
ps_template_store_free = _fn("ps_template_store_free", None, c_void_p)
ps_template_applies = _fn("ps_template_applies", c_int, c_void_p)
ps_template_apply = _fn("ps_template_apply", c_size_t, c_void_p, c_void_p)
ps_read_file = _fn("ps_read_file", c_void_p, c_char_p, c_size_t, POINTER(c_size_t), Err)

ps_train_data_load = _lab_fn("ps_train_data_load", c_void_p, POINTER(c_char_p), c_size_t, c_char_p,
                             c_int, Err)
ps_train_data_free = _lab_fn("ps_train_data_free", None, c_void_p)
ps_train_data_get_info = _lab_fn("ps_train_data_get_info", None, c_void_p, POINTER(ps_train_data_info))
ps_train_options_init = _lab_fn("ps_train_options_init", None, POINTER(ps_train_options))
ps_train_grid_search = _lab_fn("ps_train_grid_search", c_int, c_void_p, POINTER(ps_train_options),
                               POINTER(ps_train_grid), Err)
ps_train_grid_free = _lab_fn("ps_train_grid_free", None, POINTER(ps_train_grid))
ps_train_final = _lab_fn("ps_train_final", c_void_p, c_void_p, POINTER(ps_train_options), c_double,
                         c_double, POINTER(ps_train_grid), c_int, Err)
ps_model_save = _fn("ps_model_save", c_int, c_void_p, c_char_p, Err)
ps_model_free = _fn("ps_model_free", None, c_void_p)
ps_model_info = _fn("ps_model_info", c_char_p, c_void_p, c_char_p)

# libc: memory the library hands over, and FILE streams for its writers
malloc = libc.malloc
malloc.restype = c_void_p
malloc.argtypes = [c_size_t]
free = libc.free
free.restype = None
free.argtypes = [c_void_p]
strdup = libc.strdup
strdup.restype = c_void_p
strdup.argtypes = [c_char_p]
fopen = libc.fopen
fopen.restype = c_void_p
fopen.argtypes = [c_char_p, c_char_p]
fdopen = libc.fdopen
fdopen.restype = c_void_p
fdopen.argtypes = [c_int, c_char_p]
fclose = libc.fclose
fclose.restype = c_int
fclose.argtypes = [c_void_p]
fflush = libc.fflush
fflush.restype = c_int
fflush.argtypes = [c_void_p]
open_memstream = libc.open_memstream
open_memstream.restype = c_void_p
open_memstream.argtypes = [POINTER(c_void_p), POINTER(c_size_t)]


def cstr(p):
    """A char * the library owns (c_void_p value) as str, None for NULL."""
    if not p:
        return None
    return ctypes.string_at(p).decode("utf-8", "replace")


def ps_init_once():
    ps_init()
