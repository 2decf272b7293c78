"""Build one keep-style app against pico-tflmicro's RP2040 build in /work/ext/swap/build2040 (read only): its
main.cc/model.cc compile commands and link command, as ninja has them for keep_hello_world_int8, with the app's
directory, the object and output paths moved to /work/ext/advice2/pbuild. usage: pico_app.py APPDIR NAME [-DDEFS...]"""
import os, shlex, subprocess, sys
B = "/work/ext/swap/build2040"
REF = "keep_hello_world_int8"
OUT = "/work/ext/advice2/pbuild"
appdir, name, defs = sys.argv[1], sys.argv[2], sys.argv[3:]
cmds = subprocess.run(["ninja", "-t", "commands", REF], cwd=B, capture_output=True, text=True, check=True).stdout
lines = cmds.splitlines()
main_cmd = next(l for l in lines if "apps/main.cc" in l and " -c " in l)
model_cmd = next(l for l in lines if f"{REF}/model.cc" in l and " -c " in l)
link_cmd = lines[-1]
os.makedirs(f"{OUT}/{name}", exist_ok=True)


def compile_(cmd, source, obj):
    args = shlex.split(cmd)
    out = []
    skip = False
    for i, a in enumerate(args):
        if skip:
            skip = False
            continue
        if a in ("-MD", ):
            continue
        if a in ("-MT", "-MF"):
            skip = True
            continue
        if a == "-o":
            out += ["-o", obj]
            skip = True
            continue
        if a == "-c":
            out += ["-c", source]
            skip = True
            continue
        if a == f"-I/work/ext/swap/apps/{REF}":
            a = f"-I{appdir}"
        out.append(a)
    subprocess.run(["nice", "-n", "10", *out, *defs], cwd=B, check=True)


compile_(main_cmd, "/work/ext/swap/apps/main.cc", f"{OUT}/{name}/main.o")
compile_(model_cmd, f"{appdir}/model.cc", f"{OUT}/{name}/model.o")
link = link_cmd.split("&&", 1)[1].strip() if link_cmd.startswith(":") else link_cmd
link = link.split(" && ")[0]  # CMake's trailing "&& :"
args = shlex.split(link)
new = []
skip = False
for a in args:
    if skip:
        skip = False
        continue
    if a.endswith("apps/main.cc.o"):
        a = f"{OUT}/{name}/main.o"
    elif a.endswith(f"{REF}/model.cc.o"):
        a = f"{OUT}/{name}/model.o"
    elif a == "-o":
        new += ["-o", f"{OUT}/{name}.elf", f"-Wl,-Map={OUT}/{name}.elf.map"]
        skip = True
        continue
    elif a.startswith("-Wl,-Map="):
        continue
    new.append(a)
assert f"{OUT}/{name}/main.o" in new and f"{OUT}/{name}/model.o" in new, "link inputs not found"
subprocess.run(["nice", "-n", "10", *new], cwd=B, check=True)
print("ok", name)
