/* krmlib._yaml.ccheck: the whole-input check's event pass (krmlib/_yaml/syntax.py) on libyaml's C API.
 *
 * One function, outline(text, path_keys, max_digits, max_depth, max_key, strings). It walks
 * libyaml's events exactly as krmlib._yaml.syntax._walk does, without a Python object per event, and
 * answers either the outline that walk records (see _syntax._outline_from_c) or None: "unsure".
 * None is the answer for everything that is not the plain, accepted case: a libyaml error, a tag,
 * an alias, a merge key, a duplicate key (or two keys with the same 64-bit hash), a header field
 * that is not certainly a string, a key, integer or nesting over the bounds, a collection where a
 * path annotation should be. The caller then runs the Python walk, which gives the verdict and
 * the message: the fast path never decides a refusal, so messages are the Python check's by
 * construction. Path annotation values are returned (distinct) for the caller to check.
 *
 * Built against Debian's libyaml-dev (libyaml 0.2.5, the version PyYAML's wheels bundle: the
 * same events and marks). The differential test is tests/test_ccheck.py.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include <yaml.h>

/* What the key of the collection being read (or of a stack entry) is, as far as the walk cares. */
enum {
    K_NONE = 0, /* None: a sequence, the document level, a complex key */
    K_OTHER,
    K_API_VERSION,
    K_KIND,
    K_NAME,
    K_NAMESPACE,
    K_METADATA,
    K_ANNOTATIONS,
    K_ITEMS,
    K_FUNCTION_CONFIG,
    K_PATH,
};

#define IS_HEAD_KEY(k) ((k) >= K_API_VERSION && (k) <= K_NAMESPACE)

typedef struct {
    int is_map;   /* keys is not None */
    int want_key; /* a mapping expecting a key */
    int key;      /* K_* */
} State;

/* A mapping's keys as 64-bit hashes (open addressing, 0 = empty). */
typedef struct {
    uint64_t *slots;
    size_t cap;
    size_t used;
} KeySet;

typedef struct {
    long line;
    Py_ssize_t start;
    PyObject *values[4]; /* apiVersion, kind, name, namespace: str or NULL */
    int interned;        /* an item's head (strings shared), not a document's or a scalar's */
} Head;

typedef struct {
    Head *heads;
    size_t n, cap;
} Heads;

#define MAX_PATH_KEYS 8

typedef struct {
    const char *path_keys[MAX_PATH_KEYS];
    size_t path_key_lengths[MAX_PATH_KEYS];
    Py_ssize_t n_path_keys;
    Py_ssize_t max_digits;
    int max_depth;
    Py_ssize_t max_key;
    PyObject *strings;
    PyObject *paths; /* set of path annotation values seen */
    PyObject *sections;
    Heads items, docs;
    KeySet *sets; /* one per depth */
    State *stack;
    int documents;
    const char *config;
    long config_line;
} Walk;

static uint64_t hash_bytes(const unsigned char *s, size_t n) {
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 1099511628211ULL;
    }
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 32;
    return h ? h : 1;
}

/* Add h; 0: added, 1: present (a duplicate or a collision: unsure), -1: no memory. */
static int keyset_add(KeySet *set, uint64_t h) {
    if ((set->used + 1) * 2 > set->cap) {
        size_t cap = set->cap ? set->cap * 2 : 16;
        uint64_t *slots = calloc(cap, sizeof(uint64_t));
        if (slots == NULL) return -1;
        for (size_t i = 0; i < set->cap; i++) {
            uint64_t v = set->slots[i];
            if (v) {
                size_t j = (size_t)v & (cap - 1);
                while (slots[j]) j = (j + 1) & (cap - 1);
                slots[j] = v;
            }
        }
        free(set->slots);
        set->slots = slots;
        set->cap = cap;
    }
    size_t j = (size_t)h & (set->cap - 1);
    while (set->slots[j]) {
        if (set->slots[j] == h) return 1;
        j = (j + 1) & (set->cap - 1);
    }
    set->slots[j] = h;
    set->used++;
    return 0;
}

static void keyset_clear(KeySet *set) {
    if (set->cap > 256) { /* one big mapping: do not clear its table for every small one after */
        free(set->slots);
        set->slots = NULL;
        set->cap = 0;
    } else if (set->used) {
        memset(set->slots, 0, set->cap * sizeof(uint64_t));
    }
    set->used = 0;
}

static Head *heads_add(Heads *heads, long line, Py_ssize_t start, int interned) {
    if (heads->n == heads->cap) {
        size_t cap = heads->cap ? heads->cap * 2 : 64;
        Head *grown = realloc(heads->heads, cap * sizeof(Head));
        if (grown == NULL) return NULL;
        heads->heads = grown;
        heads->cap = cap;
    }
    Head *head = &heads->heads[heads->n++];
    head->line = line;
    head->start = start;
    head->values[0] = head->values[1] = head->values[2] = head->values[3] = NULL;
    head->interned = interned;
    return head;
}

static void heads_free(Heads *heads) {
    for (size_t i = 0; i < heads->n; i++)
        for (int s = 0; s < 4; s++) Py_XDECREF(heads->heads[i].values[s]);
    free(heads->heads);
}

#define EQ(value, length, literal) \
    ((length) == sizeof(literal) - 1 && memcmp((value), (literal), sizeof(literal) - 1) == 0)

static int classify(Walk *w, const char *value, size_t length) {
    switch (length) {
    case 4:
        if (EQ(value, length, "kind")) return K_KIND;
        if (EQ(value, length, "name")) return K_NAME;
        break;
    case 5:
        if (EQ(value, length, "items")) return K_ITEMS;
        break;
    case 8:
        if (EQ(value, length, "metadata")) return K_METADATA;
        break;
    case 9:
        if (EQ(value, length, "namespace")) return K_NAMESPACE;
        break;
    case 10:
        if (EQ(value, length, "apiVersion")) return K_API_VERSION;
        break;
    case 11:
        if (EQ(value, length, "annotations")) return K_ANNOTATIONS;
        break;
    case 14:
        if (EQ(value, length, "functionConfig")) return K_FUNCTION_CONFIG;
        break;
    }
    for (Py_ssize_t i = 0; i < w->n_path_keys; i++)
        if (w->path_key_lengths[i] == length && memcmp(w->path_keys[i], value, length) == 0)
            return K_PATH;
    return K_OTHER;
}

/* Plain scalars _syntax reads as null. */
static int is_null(const char *v, size_t n) {
    return n == 0 || EQ(v, n, "~") || EQ(v, n, "null") || EQ(v, n, "Null") || EQ(v, n, "NULL");
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* [eE][-+]?[0-9]+ from v[*i] to the end. */
static int exponent_to_end(const char *v, size_t n, size_t i) {
    if (i == n) return 1;
    if (v[i] != 'e' && v[i] != 'E') return 0;
    i++;
    if (i < n && (v[i] == '-' || v[i] == '+')) i++;
    if (i == n) return 0;
    for (; i < n; i++)
        if (!is_digit(v[i])) return 0;
    return 1;
}

/* The number, .inf and .nan alternatives of _syntax._NOT_STRING (whole value). */
static int is_number(const char *v, size_t n) {
    size_t i = 0;
    if (n >= 3 && v[0] == '0' && (v[1] == 'o' || v[1] == 'x')) {
        int hex = v[1] == 'x';
        for (i = 2; i < n; i++) {
            char c = v[i];
            int ok = hex ? (is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))
                         : (c >= '0' && c <= '7');
            if (!ok) break;
        }
        if (i == n) return 1;
        i = 0;
    }
    if (n - i >= 4 && v[i] == '.' &&
        (memcmp(v + i, ".nan", 4) == 0 || memcmp(v + i, ".NaN", 4) == 0 ||
         memcmp(v + i, ".NAN", 4) == 0) && n == 4)
        return 1;
    if (i < n && (v[i] == '-' || v[i] == '+')) i++;
    if (i < n && v[i] == '.') {
        size_t rest = n - i;
        if (rest == 4 && (memcmp(v + i, ".inf", 4) == 0 || memcmp(v + i, ".Inf", 4) == 0 ||
                          memcmp(v + i, ".INF", 4) == 0))
            return 1;
        i++;
        size_t digits = i;
        while (i < n && is_digit(v[i])) i++;
        if (i == digits) return 0;
        return exponent_to_end(v, n, i);
    }
    if (i == n || !is_digit(v[i])) return 0;
    i++;
    while (i < n && (is_digit(v[i]) || v[i] == '_')) i++;
    if (i < n && v[i] == '.') {
        i++;
        while (i < n && (is_digit(v[i]) || v[i] == '_')) i++;
    }
    return exponent_to_end(v, n, i);
}

/* A plain scalar that is certainly a string for _syntax._scalar_kind (not null, not a number,
 * boolean or date of its patterns, not a YAML 1.1 boolean). Conservative: 0 when unsure. */
static int certainly_string(const char *v, size_t n) {
    if (n == 0 || v[n - 1] == '\n') return 0;
    if (n <= 3) { /* _BOOL_1_1, "~" */
        static const char *short_words[] = {"y",  "Y",  "yes", "Yes", "YES", "n",  "N",  "no",
                                            "No", "NO", "on",  "On",  "ON",  "off", "Off", "OFF",
                                            "~",  NULL};
        for (int i = 0; short_words[i]; i++)
            if (strlen(short_words[i]) == n && memcmp(short_words[i], v, n) == 0) return 0;
    }
    if (strchr("0123456789+-.~nNtTfF", v[0]) == NULL) return 1;
    static const char *words[] = {"true", "True",  "TRUE",  "false", "False", "FALSE",
                                  "null", "Null",  "NULL",  NULL};
    for (int i = 0; words[i]; i++)
        if (strlen(words[i]) == n && memcmp(words[i], v, n) == 0) return 0;
    /* A date: four digits and a dash. */
    if (n >= 5 && v[4] == '-' && v[0] >= '0' && v[0] <= '9' && v[1] >= '0' && v[1] <= '9' &&
        v[2] >= '0' && v[2] <= '9' && v[3] >= '0' && v[3] <= '9')
        return 0;
    return !is_number(v, n);
}

/* An integer _syntax could refuse as too long: unsure. */
static int maybe_long_int(const char *v, size_t n, Py_ssize_t max_digits) {
    return (Py_ssize_t)n > max_digits && strchr("+-0123456789", v[0]) != NULL;
}

#define UNSURE 1
#define FAILED (-1)

/* _syntax._note_head for a scalar value; 0 on success, UNSURE, FAILED. */
static int note_head_scalar(Walk *w, Head *head, int head_level, int level, int key,
                            const yaml_event_t *event) {
    int slot;
    if (level == head_level && (key == K_API_VERSION || key == K_KIND))
        slot = key == K_API_VERSION ? 0 : 1;
    else if (level == head_level + 1 && (key == K_NAME || key == K_NAMESPACE) &&
             w->stack[head_level].key == K_METADATA)
        slot = key == K_NAME ? 2 : 3;
    else
        return 0;
    const char *value = (const char *)event->data.scalar.value;
    size_t length = event->data.scalar.length;
    if (event->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
        if (is_null(value, length)) return 0; /* absent */
        if (!certainly_string(value, length)) return UNSURE;
    }
    PyObject *text = PyUnicode_DecodeUTF8(value, (Py_ssize_t)length, NULL);
    if (text == NULL) return FAILED;
    if (slot != 2 && head->interned) {
        PyObject *shared = PyDict_SetDefault(w->strings, text, text);
        if (shared == NULL) {
            Py_DECREF(text);
            return FAILED;
        }
        Py_INCREF(shared);
        Py_DECREF(text);
        text = shared;
    }
    Py_XSETREF(head->values[slot], text);
    return 0;
}

/* A collection where _note_head would record a value: a problem, so unsure. */
static int head_collection(Walk *w, int head_level, int level, int key) {
    if (level == head_level && (key == K_API_VERSION || key == K_KIND)) return UNSURE;
    if (level == head_level + 1 && (key == K_NAME || key == K_NAMESPACE) &&
        w->stack[head_level].key == K_METADATA)
        return UNSURE;
    return 0;
}

static int in_annotations(Walk *w, int head_level, int depth) {
    return depth == head_level + 2 && w->stack[head_level + 1].key == K_ANNOTATIONS &&
           w->stack[head_level].key == K_METADATA;
}

/* The walk; 0: accepted (the outline is in w), UNSURE, FAILED (a Python error is set). */
static int walk(Walk *w, yaml_parser_t *parser) {
    State cur = {0, 0, K_NONE};
    int depth = 0;
    Heads *head_list = NULL; /* where head is: NULL (none yet), &w->docs or &w->items */
    size_t head_index = 0;
    size_t doc_index = 0;
    int head_level = 1;
    yaml_event_t event;
    int status = 0;
#define HEAD (&head_list->heads[head_index])
    for (;;) {
        if (!yaml_parser_parse(parser, &event)) return UNSURE;
        switch (event.type) {
        case YAML_SCALAR_EVENT: {
            const char *value = (const char *)event.data.scalar.value;
            size_t length = event.data.scalar.length;
            int plain = event.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
            if (event.data.scalar.tag != NULL) goto unsure;
            if (cur.want_key) {
                if ((Py_ssize_t)length > w->max_key) goto unsure;
                if (length == 2 && value[0] == '<' && value[1] == '<') goto unsure; /* merged */
                int added = keyset_add(&w->sets[depth], hash_bytes(event.data.scalar.value, length));
                if (added) {
                    status = added > 0 ? UNSURE : FAILED;
                    if (added < 0) PyErr_NoMemory();
                    goto done;
                }
                cur.key = classify(w, value, length);
                cur.want_key = 0;
                if (depth == 1 && w->documents == 1) {
                    PyObject *entry = Py_BuildValue("(ls#)", (long)event.start_mark.line + 1,
                                                    value, (Py_ssize_t)length);
                    if (entry == NULL || PyList_Append(w->sections, entry) < 0) {
                        Py_XDECREF(entry);
                        goto failed;
                    }
                    Py_DECREF(entry);
                }
                break;
            }
            if (plain && maybe_long_int(value, length, w->max_digits)) goto unsure;
            if (cur.is_map) {
                cur.want_key = 1;
                int key = cur.key;
                if (depth <= head_level + 1 && IS_HEAD_KEY(key) && head_list != NULL) {
                    int r = note_head_scalar(w, HEAD, head_level, depth, key, &event);
                    if (r) {
                        status = r;
                        goto done;
                    }
                } else if (depth == 1 && key == K_FUNCTION_CONFIG && w->documents == 1) {
                    w->config_line = (long)event.start_mark.line + 1;
                    w->config = plain && is_null(value, length) ? "null" : "a scalar";
                } else if (key == K_PATH && head_list != NULL &&
                           in_annotations(w, head_level, depth)) {
                    PyObject *text = PyUnicode_DecodeUTF8(value, (Py_ssize_t)length, NULL);
                    if (text == NULL || PySet_Add(w->paths, text) < 0) {
                        Py_XDECREF(text);
                        goto failed;
                    }
                    Py_DECREF(text);
                }
            } else if (depth == 2 && w->documents == 1 && w->stack[1].key == K_ITEMS) {
                if (heads_add(&w->items, (long)event.start_mark.line + 1,
                              (Py_ssize_t)event.start_mark.index, 0) == NULL)
                    goto nomemory;
            }
            break;
        }
        case YAML_MAPPING_START_EVENT:
        case YAML_SEQUENCE_START_EVENT: {
            int is_map = event.type == YAML_MAPPING_START_EVENT;
            const yaml_char_t *tag =
                is_map ? event.data.mapping_start.tag : event.data.sequence_start.tag;
            if (tag != NULL) goto unsure;
            int level = depth;
            if (level >= w->max_depth) goto unsure;
            if (cur.is_map) {
                if (cur.want_key) { /* a complex key: its value comes next */
                    w->stack[depth] = (State){1, 0, K_NONE};
                } else {
                    int key = cur.key;
                    if (level <= head_level + 1 && IS_HEAD_KEY(key) && head_list != NULL) {
                        if (head_collection(w, head_level, level, key)) goto unsure;
                    } else if (level == 1 && key == K_FUNCTION_CONFIG && w->documents == 1) {
                        w->config_line = (long)event.start_mark.line + 1;
                        w->config = is_map ? "mapping" : "a list";
                    } else if (key == K_PATH && head_list != NULL &&
                               in_annotations(w, head_level, level)) {
                        goto unsure;
                    }
                    w->stack[depth] = (State){1, 1, key};
                }
                depth++;
            } else {
                w->stack[depth] = cur;
                depth++;
                if (level == 2 && w->documents == 1 && w->stack[1].key == K_ITEMS) {
                    if (heads_add(&w->items, (long)event.start_mark.line + 1,
                                  (Py_ssize_t)event.start_mark.index, 1) == NULL)
                        goto nomemory;
                    head_list = &w->items;
                    head_index = w->items.n - 1;
                    head_level = 3;
                }
            }
            if (is_map) {
                cur = (State){1, 1, K_NONE};
                keyset_clear(&w->sets[depth]);
            } else {
                cur = (State){0, 0, K_NONE};
            }
            break;
        }
        case YAML_MAPPING_END_EVENT:
        case YAML_SEQUENCE_END_EVENT:
            depth--;
            cur = w->stack[depth];
            if (depth < head_level) {
                head_list = &w->docs;
                head_index = doc_index;
                head_level = 1;
            }
            break;
        case YAML_ALIAS_EVENT:
            goto unsure;
        case YAML_DOCUMENT_START_EVENT:
            w->documents++;
            if (heads_add(&w->docs, (long)event.end_mark.line + 1,
                          (Py_ssize_t)event.end_mark.index, 0) == NULL)
                goto nomemory;
            doc_index = w->docs.n - 1;
            head_list = &w->docs;
            head_index = doc_index;
            head_level = 1;
            break;
        case YAML_STREAM_END_EVENT:
            yaml_event_delete(&event);
            return 0;
        default:
            break;
        }
        yaml_event_delete(&event);
        continue;
    unsure:
        status = UNSURE;
        goto done;
    nomemory:
        PyErr_NoMemory();
    failed:
        status = FAILED;
    done:
        yaml_event_delete(&event);
        return status;
    }
#undef HEAD
}

static PyObject *heads_list(Heads *heads, PyObject *strings) {
    PyObject *list = PyList_New((Py_ssize_t)heads->n);
    if (list == NULL) return NULL;
    for (size_t i = 0; i < heads->n; i++) {
        Head *h = &heads->heads[i];
        PyObject *values[4];
        for (int s = 0; s < 4; s++) values[s] = h->values[s] ? h->values[s] : Py_None;
        PyObject *entry =
            Py_BuildValue("(lnOOOOO)", h->line, h->start, values[0], values[1], values[2],
                          values[3], h->interned ? strings : Py_None);
        if (entry == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, entry);
    }
    return list;
}

static PyObject *outline(PyObject *module, PyObject *args) {
    PyObject *text, *path_keys, *strings;
    Py_ssize_t max_digits, max_key;
    int max_depth;
    if (!PyArg_ParseTuple(args, "UO!ninO!", &text, &PyTuple_Type, &path_keys, &max_digits,
                          &max_depth, &max_key, &PyDict_Type, &strings))
        return NULL;
    /* An ASCII str is its own UTF-8; any other is encoded into a copy freed after the walk
     * (PyUnicode_AsUTF8AndSize would keep that copy on the str, as long as the items live). */
    PyObject *encoded = NULL;
    Py_ssize_t size;
    const char *data;
    if (PyUnicode_IS_ASCII(text)) {
        data = PyUnicode_AsUTF8AndSize(text, &size);
    } else {
        encoded = PyUnicode_AsUTF8String(text);
        data = encoded != NULL ? PyBytes_AS_STRING(encoded) : NULL;
        size = encoded != NULL ? PyBytes_GET_SIZE(encoded) : 0;
    }
    if (data == NULL) { /* a lone surrogate: the Python check says what it says */
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    Walk w;
    memset(&w, 0, sizeof w);
    if (PyTuple_GET_SIZE(path_keys) > MAX_PATH_KEYS) {
        PyErr_SetString(PyExc_ValueError, "too many path keys");
        Py_XDECREF(encoded);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(path_keys); i++) {
        PyObject *key = PyTuple_GET_ITEM(path_keys, i);
        Py_ssize_t n;
        const char *bytes = PyUnicode_Check(key) ? PyUnicode_AsUTF8AndSize(key, &n) : NULL;
        if (bytes == NULL) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "path keys are strings");
            Py_XDECREF(encoded);
            return NULL;
        }
        w.path_keys[i] = bytes;
        w.path_key_lengths[i] = (size_t)n;
    }
    w.n_path_keys = PyTuple_GET_SIZE(path_keys);
    w.max_digits = max_digits;
    w.max_depth = max_depth;
    w.max_key = max_key;
    w.strings = strings;
    w.config = "absent";
    w.paths = PySet_New(NULL);
    w.sections = PyList_New(0);
    w.sets = calloc((size_t)max_depth + 2, sizeof(KeySet));
    w.stack = calloc((size_t)max_depth + 2, sizeof(State));
    PyObject *result = NULL;
    if (w.paths == NULL || w.sections == NULL || w.sets == NULL || w.stack == NULL) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto out;
    }
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        PyErr_NoMemory();
        goto out;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)data, (size_t)size);
    /* No yaml_parser_set_encoding: as PyYAML, libyaml detects it (and skips a leading BOM). */
    int status = walk(&w, &parser);
    yaml_parser_delete(&parser);
    if (status == FAILED) goto out;
    if (status == UNSURE) {
        result = Py_NewRef(Py_None);
        goto out;
    }
    PyObject *items = heads_list(&w.items, strings);
    PyObject *docs = items ? heads_list(&w.docs, strings) : NULL;
    if (docs != NULL)
        result = Py_BuildValue("(iNNsl OO)", w.documents, items, docs, w.config, w.config_line,
                               w.sections, w.paths);
    else
        Py_XDECREF(items);
out:
    heads_free(&w.items);
    heads_free(&w.docs);
    if (w.sets != NULL)
        for (int i = 0; i < max_depth + 2; i++) free(w.sets[i].slots);
    free(w.sets);
    free(w.stack);
    Py_XDECREF(w.paths);
    Py_XDECREF(w.sections);
    Py_XDECREF(encoded);
    return result;
}

static PyMethodDef methods[] = {
    {"outline", outline, METH_VARARGS,
     "outline(text, path_keys, max_digits, max_depth, max_key, strings): what krmlib._yaml.syntax's "
     "walk records of an accepted input, or None (unsure: run the Python walk)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "krmlib._yaml.ccheck",
    .m_doc = "The whole-input check's event pass on libyaml's C API (see krmlib._yaml.syntax).",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit_ccheck(void) { return PyModule_Create(&module); }
