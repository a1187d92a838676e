/*
 * The compiled passes of sysrs_ref.fast, built as a Python extension module only so that setuptools compiles and
 * installs them; the module itself is empty. sysrs_ref/fast/_native.py loads the library with ctypes.
 */
#include <Python.h>
#include <stdint.h>

#include "common.h"

/* The interface of the C functions (INTERFACE in sysrs_ref/fast/_native.py): change both together whenever a C
 * signature changes, so that a library of another build is refused rather than called with the wrong arguments. */
EXPORT int64_t sysrs_native_interface(void) { return 7; }

static struct PyModuleDef module = {
    .m_base = PyModuleDef_HEAD_INIT,
    .m_name = "_native_lib",
    .m_doc = "the compiled passes of sysrs_ref.fast (loaded with ctypes by sysrs_ref.fast._native)",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__native_lib(void) { return PyModule_Create(&module); }
