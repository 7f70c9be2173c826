#include "bcusim/isa/model.h"

#include <gtest/gtest.h>
