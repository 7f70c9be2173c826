// from_decoded needs the ISA library (branch isa); filled in once merged.
