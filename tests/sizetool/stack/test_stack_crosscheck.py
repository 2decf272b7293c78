"""GCC's .su names and the demangler's names reduce to the same key."""

import pytest

from sizetool.stack.stack_crosscheck import function_key, parameter_types


@pytest.mark.parametrize("gcc, demangled", [
    ("tflite::TfLiteStatus tflite::{anonymous}::Eval(tflite::TfLiteContext*, tflite::TfLiteNode*)",
     "tflite::(anonymous namespace)::Eval(tflite::TfLiteContext*, tflite::TfLiteNode*)"),
    ("void tflite::reference_ops::Fill(const tflite::TfLiteIntArray&, NdArrayDesc<N>*) [with int N = 4]",
     "void tflite::reference_ops::Fill<4>(tflite::TfLiteIntArray const&, NdArrayDesc<4>*)"),
    ("virtual void* tflite::ArenaAllocator::Allocate(size_t, size_t)",
     "tflite::ArenaAllocator::Allocate(unsigned int, unsigned int)"),
    ("tflite::TfLiteStatus (* tflite::MicroMutableOpResolver<tOpCount>::GetOpDataParser(tflite::BuiltinOperator) "
     "const)(const tflite::Operator*, void**) [with unsigned int tOpCount = 3]",
     "tflite::MicroMutableOpResolver<3u>::GetOpDataParser(tflite::BuiltinOperator) const"),
    ("tflite::CalculateRange(int, int32_t*)::<lambda(float)>",
     "tflite::CalculateRange(int, long*)::{lambda(float)#1}::operator()(float) const"),
    ("int main()", "main"),
    ("static void foo(int) [clone .constprop.0]", "foo(int) [clone .constprop.0]"),
])
def test_gcc_and_demangled_names_share_a_key(gcc, demangled):
    assert function_key(gcc)[0] == function_key(demangled)[0]


def test_the_key_counts_parameters_and_types_tell_overloads_apart():
    assert function_key("f(int, char const*)")[1] == 2
    assert function_key("f()")[1] == function_key("int f(void)")[1] == 0
    assert parameter_types("const T* R::FindOp(const char*) const") == parameter_types("R::FindOp(char const*) const")
    assert parameter_types("R::FindOp(char const*) const") != parameter_types("R::FindOp(tflite::BuiltinOperator) const")


def test_template_instantiations_are_told_apart_by_their_arguments_in_order():
    from sizetool.inputs.stack_usage import StackUsageEntry
    from sizetool.stack.stack_crosscheck import _same_template_arguments

    def entry(clause, size):
        return StackUsageEntry("softmax.su", "softmax.h", 69, "void tflite::reference_ops::Softmax(const SoftmaxParams&, "
                               f"const InputT*, OutputT*) [with {clause}]", size, ("static",))

    wide, narrow = entry("InputT = signed char; OutputT = short int", 88), entry(
        "InputT = signed char; OutputT = signed char", 80)
    name = "void tflite::reference_ops::Softmax<signed char, short>(tflite::SoftmaxParams const&, signed char const*, short*)"
    assert _same_template_arguments(name, [narrow, wide]) == [wide]
    resolver = "tflite::MicroMutableOpResolver<13u>::AddBuiltin(tflite::BuiltinOperator)"
    thirteen = StackUsageEntry("m.su", "r.h", 1, "R<tOpCount>::AddBuiltin(B) [with unsigned int tOpCount = 13]", 32,
                               ("static",))
    three = StackUsageEntry("m.su", "r.h", 1, "R<tOpCount>::AddBuiltin(B) [with unsigned int tOpCount = 3]", 24,
                            ("static",))
    assert _same_template_arguments(resolver, [three, thirteen]) == [thirteen]
