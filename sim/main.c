/*
 * sim/main.c - the dlsim executable: everything else is in the library,
 * so that tests call the same code (sim/cli.c: dl_main).
 */
int dl_main(int argc, char **argv);

int main(int argc, char **argv)
{
    return dl_main(argc, argv);
}
