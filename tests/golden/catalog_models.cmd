catalog models
