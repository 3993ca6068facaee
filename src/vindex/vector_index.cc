#include "src/vindex/vector_index.h"
