/* tests/plugins/nosym.c - a shared object that is no dlsim plug-in: it
 * exports no dlsim_policy_plugin (test_plugin checks the refusal). */
int not_a_policy(void);
int not_a_policy(void)
{
    return 42;
}
