#include "bcusim/isa/tools.h"

#include <gtest/gtest.h>
